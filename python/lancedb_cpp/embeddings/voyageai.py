# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``voyageai``: Voyage AI's embedding API through its ``voyageai`` client (text, contextual
and multimodal models), as LanceDB's ``VoyageAIEmbeddingFunction``.

The key is read from ``VOYAGE_API_KEY``; one client is shared by every instance (the class
attribute ``client``). Text sent for the stored column is split into batches that stay under
the model's token limit (counted by the client's ``tokenize``) and 1000 inputs."""

from __future__ import annotations

import base64
import os
from io import BytesIO
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterator, List, Optional, Union
from urllib.parse import urlparse

import numpy as np
import pyarrow as pa

from .utils import attempt_import_or_raise
from .base import EmbeddingFunction
from .registry import register
from .utils import IMAGES, TEXT, api_key_not_found_help

# Tokens one request may carry, by model (others: 120,000).
VOYAGE_TOTAL_TOKEN_LIMITS = {
    "voyage-4": 320_000,
    "voyage-4-lite": 1_000_000,
    "voyage-4-large": 120_000,
    "voyage-context-3": 32_000,
    "voyage-3.5-lite": 1_000_000,
    "voyage-3.5": 320_000,
    "voyage-3-lite": 120_000,
    "voyage-3": 120_000,
    "voyage-multimodal-3": 120_000,
    "voyage-finance-2": 120_000,
    "voyage-multilingual-2": 120_000,
    "voyage-law-2": 120_000,
    "voyage-code-2": 120_000,
}

# Inputs one request may carry.
BATCH_SIZE = 1000

VIDEO_EXTENSIONS = {".mp4", ".webm", ".mov", ".avi", ".mkv", ".m4v", ".gif"}

_DIMS = {"voyage-3-lite": 512, "voyage-code-2": 1536}
_DIMS_1024 = (
    "voyage-4", "voyage-4-lite", "voyage-4-large", "voyage-context-3", "voyage-3.5",
    "voyage-3.5-lite", "voyage-3", "voyage-multimodal-3", "voyage-finance-2",
    "voyage-multilingual-2", "voyage-law-2",
)


def is_valid_url(text: Any) -> bool:
    """Whether `text` parses as a URL with a scheme and a host."""
    try:
        parsed = urlparse(text)
    except Exception:  # noqa: BLE001 - anything unparsable is no URL
        return False
    return bool(parsed.scheme) and bool(parsed.netloc)


def is_video_url(url: str) -> bool:
    """Whether the URL's path ends in a video file extension."""
    return any(urlparse(url).path.lower().endswith(ext) for ext in VIDEO_EXTENSIONS)


def is_video_path(path: Path) -> bool:
    """Whether the file path has a video file extension."""
    return path.suffix.lower() in VIDEO_EXTENSIONS


def _jpeg_base64(image: Any) -> dict:
    buffered = BytesIO()
    image.save(buffered, format="JPEG")
    encoded = base64.b64encode(buffered.getvalue()).decode("utf-8")
    return {"type": "image_base64", "image_base64": "data:image/jpeg;base64," + encoded}


def transform_input(input_data: Union[str, bytes, Path, Any]) -> dict:
    """One multimodal input as the API's ``{"content": [...]}``: a URL (image or video), a
    text, a PIL image, image bytes, or a path to an image or a video file."""
    pil_image = attempt_import_or_raise("PIL.Image", "pillow")
    if isinstance(input_data, str):
        if not is_valid_url(input_data):
            content = {"type": "text", "text": input_data}
        elif is_video_url(input_data):
            content = {"type": "video_url", "video_url": input_data}
        else:
            content = {"type": "image_url", "image_url": input_data}
    elif isinstance(input_data, pil_image.Image):
        content = _jpeg_base64(input_data)
    elif isinstance(input_data, bytes):
        content = _jpeg_base64(pil_image.open(BytesIO(input_data)))
    elif isinstance(input_data, Path):
        if is_video_path(input_data):
            video = base64.b64encode(input_data.read_bytes()).decode("utf-8")
            content = {"type": "video_base64", "video_base64": video}
        else:
            content = _jpeg_base64(pil_image.open(input_data))
    else:
        raise ValueError("Each input should be either str, bytes, Path or Image.")
    return {"content": [content]}


def sanitize_multimodal_input(inputs: Union[TEXT, IMAGES]) -> List[dict]:
    """The inputs of a multimodal model, each as `transform_input` makes it."""
    pil_image = attempt_import_or_raise("PIL.Image", "pillow")
    if isinstance(inputs, (str, bytes, Path, pil_image.Image)):
        inputs = [inputs]
    elif isinstance(inputs, pa.ChunkedArray):
        inputs = inputs.combine_chunks().to_pylist()
    elif isinstance(inputs, pa.Array):
        inputs = inputs.to_pylist()
    elif not isinstance(inputs, list):
        raise ValueError(f"Input type {type(inputs)} not allowed with multimodal model.")
    if not all(isinstance(x, (str, bytes, Path, pil_image.Image)) for x in inputs):
        raise ValueError("Each input should be either str, bytes, Path or Image.")
    return [transform_input(x) for x in inputs]


def sanitize_text_input(inputs: TEXT) -> List[str]:
    """The inputs of a text model as a list of str (a str, or a list, NumPy or Arrow array of
    them; LanceDB's refuses a list here)."""
    if isinstance(inputs, str):
        inputs = [inputs]
    elif isinstance(inputs, (list, np.ndarray)):
        inputs = list(inputs)
    elif isinstance(inputs, pa.ChunkedArray):
        inputs = inputs.combine_chunks().to_pylist()
    elif isinstance(inputs, pa.Array):
        inputs = inputs.to_pylist()
    else:
        raise ValueError(f"Input type {type(inputs)} not allowed with text model.")
    if not all(isinstance(x, str) for x in inputs):
        raise ValueError("Each input should be str.")
    return inputs


@register("voyageai")
class VoyageAIEmbeddingFunction(EmbeddingFunction):
    """Embeddings from the Voyage AI API (https://docs.voyageai.com/docs/embeddings).

    Parameters
    ----------
    name : str
        The model: voyage-4, voyage-4-lite, voyage-4-large, voyage-context-3, voyage-3.5,
        voyage-3.5-lite, voyage-3, voyage-3-lite, voyage-multimodal-3,
        voyage-multimodal-3.5, voyage-finance-2, voyage-multilingual-2, voyage-law-2,
        voyage-code-2.
    output_dimension : int, optional
        For the models of flexible dimension (voyage-multimodal-3.5): 256, 512, 1024
        (the default) or 2048.
    """

    name: str
    output_dimension: Optional[int] = None
    client: ClassVar = None
    _FLEXIBLE_DIM_MODELS: ClassVar[list] = ["voyage-multimodal-3.5"]
    _VALID_DIMENSIONS: ClassVar[list] = [256, 512, 1024, 2048]
    text_embedding_models: list = [
        "voyage-4", "voyage-4-lite", "voyage-4-large", "voyage-3.5", "voyage-3.5-lite",
        "voyage-3", "voyage-3-lite", "voyage-finance-2", "voyage-multilingual-2",
        "voyage-law-2", "voyage-code-2",
    ]  # fmt: skip
    multimodal_embedding_models: list = ["voyage-multimodal-3", "voyage-multimodal-3.5"]
    contextual_embedding_models: list = ["voyage-context-3"]

    def _is_multimodal_model(self, model_name: str) -> bool:
        return model_name in self.multimodal_embedding_models or "multimodal" in model_name

    def _is_contextual_model(self, model_name: str) -> bool:
        return model_name in self.contextual_embedding_models or "context" in model_name

    def ndims(self) -> int:
        if self.name in self._FLEXIBLE_DIM_MODELS:
            if self.output_dimension is None:
                return 1024
            if self.output_dimension not in self._VALID_DIMENSIONS:
                raise ValueError(
                    f"Invalid output_dimension {self.output_dimension} for {self.name}. "
                    f"Valid options: {self._VALID_DIMENSIONS}"
                )
            return self.output_dimension
        if self.name in _DIMS:
            return _DIMS[self.name]
        if self.name in _DIMS_1024:
            return 1024
        raise ValueError(f"Model {self.name} not supported")

    def _get_multimodal_kwargs(self, **kwargs: Any) -> dict:
        if self.name in self._FLEXIBLE_DIM_MODELS and self.output_dimension is not None:
            kwargs["output_dimension"] = self.output_dimension
        return kwargs

    def compute_query_embeddings(self, query: Any, *args: Any, **kwargs: Any) -> list:
        """The embedding of one query (a text, or an image for multimodal models)."""
        client = VoyageAIEmbeddingFunction._get_client()
        if self._is_multimodal_model(self.name):
            result = client.multimodal_embed(
                inputs=[[query]], model=self.name, input_type="query",
                **self._get_multimodal_kwargs(**kwargs),
            )  # fmt: skip
        elif self._is_contextual_model(self.name):
            result = client.contextualized_embed(
                inputs=[[query]], model=self.name, input_type="query", **kwargs
            ).results[0]
        else:
            result = client.embed(texts=[query], model=self.name, input_type="query", **kwargs)
        return [result.embeddings[0]]

    def compute_source_embeddings(
        self, inputs: Union[TEXT, IMAGES], *args: Any, **kwargs: Any
    ) -> list:
        """The embeddings of the stored column's values (texts; images or videos too for
        multimodal models)."""
        client = VoyageAIEmbeddingFunction._get_client()
        if self._is_multimodal_model(self.name):
            sanitized = sanitize_multimodal_input(inputs)
            if any(item["content"][0].get("type") != "text" for item in sanitized):
                # Images and videos go in one request, unbatched.
                result = client.multimodal_embed(
                    inputs=sanitized, model=self.name, input_type="document",
                    **self._get_multimodal_kwargs(**kwargs),
                )  # fmt: skip
                return result.embeddings
            texts = [item["content"][0]["text"] for item in sanitized]
        else:
            texts = sanitize_text_input(inputs)
        return self._embed_with_batching(client, texts, input_type="document", **kwargs)

    def _build_batches(self, client: Any, texts: List[str]) -> Iterator[List[str]]:
        """Consecutive batches of `texts`, each under the model's token limit and
        BATCH_SIZE inputs (a text over the limit alone makes a batch of its own)."""
        if not texts:
            return
        limit = VOYAGE_TOTAL_TOKEN_LIMITS.get(self.name, 120_000)
        counts = [len(tokens) for tokens in client.tokenize(texts, model=self.name)]
        batch: List[str] = []
        tokens = 0
        for text, count in zip(texts, counts):
            if batch and (len(batch) >= BATCH_SIZE or tokens + count > limit):
                yield batch
                batch, tokens = [], 0
            batch.append(text)
            tokens += count
        if batch:
            yield batch

    def _get_embed_function(
        self, client: Any, input_type: str = "document", **kwargs: Any
    ) -> Callable[[List[str]], list]:
        """The call that embeds one batch of texts with this model's API."""
        if self._is_multimodal_model(self.name):
            multimodal_kwargs = self._get_multimodal_kwargs(**kwargs)

            def embed_batch(batch: List[str]) -> list:
                return client.multimodal_embed(
                    inputs=sanitize_multimodal_input(batch), model=self.name,
                    input_type=input_type, **multimodal_kwargs,
                ).embeddings  # fmt: skip

        elif self._is_contextual_model(self.name):

            def embed_batch(batch: List[str]) -> list:
                return client.contextualized_embed(
                    inputs=[batch], model=self.name, input_type=input_type, **kwargs
                ).results[0].embeddings

        else:

            def embed_batch(batch: List[str]) -> list:
                return client.embed(
                    texts=batch, model=self.name, input_type=input_type, **kwargs
                ).embeddings

        return embed_batch

    def _embed_with_batching(
        self, client: Any, texts: List[str], input_type: str = "document", **kwargs: Any
    ) -> List[np.ndarray]:
        """The embeddings of `texts`, requested batch by batch, in order."""
        if not texts:
            return []
        embed_batch = self._get_embed_function(client, input_type=input_type, **kwargs)
        return [e for batch in self._build_batches(client, texts) for e in embed_batch(batch)]

    @staticmethod
    def _get_client() -> Any:
        """The shared ``voyageai.Client`` (made on first use from ``VOYAGE_API_KEY``)."""
        if VoyageAIEmbeddingFunction.client is None:
            voyageai = attempt_import_or_raise("voyageai")
            if os.environ.get("VOYAGE_API_KEY") is None:
                api_key_not_found_help("voyageai")
            VoyageAIEmbeddingFunction.client = voyageai.Client(os.environ["VOYAGE_API_KEY"])
        return VoyageAIEmbeddingFunction.client
