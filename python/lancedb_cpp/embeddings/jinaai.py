# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``jina``: Jina AI's embedding API (texts and images) over HTTP with ``requests``, as
LanceDB's ``JinaEmbeddings``. The key: `api_key` or ``JINA_API_KEY``."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path
from typing import Any, ClassVar, Dict, List, Optional, Union
from urllib.parse import urlparse

import numpy as np
import pyarrow as pa

from .utils import attempt_import_or_raise
from .base import EmbeddingFunction
from .registry import register
from .utils import IMAGES, TEXT, api_key_not_found_help, url_retrieve

API_URL = "https://api.jina.ai/v1/embeddings"


def is_valid_url(text: Any) -> bool:
    """Whether `text` parses as a URL with a scheme and a host."""
    try:
        parsed = urlparse(text)
    except Exception:  # noqa: BLE001 - anything unparsable is no URL
        return False
    return bool(parsed.scheme) and bool(parsed.netloc)


def _type_error(value: Any) -> TypeError:
    return TypeError(
        "JinaEmbeddingFunction supports str, Path, bytes or PIL Image as query, but "
        f"{type(value)} is given"
    )


def _png_base64(image: Any) -> Dict[str, str]:
    buffered = io.BytesIO()
    image.save(buffered, format="PNG")
    return {"image": base64.b64encode(buffered.getvalue()).decode("utf-8")}


@register("jina")
class JinaEmbeddings(EmbeddingFunction):
    """Embeddings from the Jina API (https://jina.ai/embeddings/).

    Parameters
    ----------
    name : str, default "jina-clip-v1"
        The model (some embed images as well as texts).
    api_key : str, optional
        A ``$var:`` reference; without it ``JINA_API_KEY`` is used.
    """

    name: str = "jina-clip-v1"
    api_key: Optional[str] = None
    _session: ClassVar = None

    def ndims(self) -> int:
        return 768

    @staticmethod
    def sensitive_keys() -> List[str]:
        return ["api_key"]

    def sanitize_input(self, inputs: Union[TEXT, IMAGES]) -> Union[List[Any], np.ndarray]:
        if isinstance(inputs, (str, bytes, Path)):
            return [inputs]
        if isinstance(inputs, pa.ChunkedArray):
            return inputs.combine_chunks().to_pylist()
        if isinstance(inputs, pa.Array):
            return inputs.to_pylist()
        if isinstance(inputs, list):
            return inputs
        pil_image = attempt_import_or_raise("PIL.Image", "pillow")
        return [inputs] if isinstance(inputs, pil_image.Image) else inputs

    @staticmethod
    def _generate_image_input_dict(image: Any) -> Dict[str, str]:
        """An image input of the API: bytes, a PIL image, or a local path / file or
        http(s) URL (read and sent as PNG)."""
        if isinstance(image, bytes):
            return {"image": base64.b64encode(image).decode("utf-8")}
        pil_image = attempt_import_or_raise("PIL.Image", "pillow")
        if isinstance(image, (str, Path)):
            parsed = urlparse(str(image))
            if parsed.scheme == "file":
                return _png_base64(pil_image.open(parsed.path))
            if parsed.scheme == "" or (os.name == "nt" and len(parsed.scheme) == 1):
                # A Windows drive letter parses as a one-letter scheme.
                return _png_base64(pil_image.open(image if os.name == "nt" else parsed.path))
            if parsed.scheme.startswith("http"):
                return _png_base64(pil_image.open(io.BytesIO(url_retrieve(str(image)))))
            raise NotImplementedError("Only local and http(s) urls are supported")
        if isinstance(image, pil_image.Image):
            return _png_base64(image)
        raise _type_error(image)

    def compute_query_embeddings(self, query: Any, *args: Any, **kwargs: Any) -> list:
        """The embedding of a text query, or of an image (URL, path, bytes, PIL image)."""
        if isinstance(query, str):
            if not is_valid_url(query):
                return self.generate_text_embeddings([query])
            return [self.generate_image_embedding(query)]
        if isinstance(query, (Path, bytes)):
            return [self.generate_image_embedding(query)]
        pil_image = attempt_import_or_raise("PIL.Image", "pillow")
        if isinstance(query, pil_image.Image):
            return [self.generate_image_embedding(query)]
        raise _type_error(query)

    def compute_source_embeddings(self, inputs: Any, *args: Any, **kwargs: Any) -> list:
        """The embeddings of the stored values: texts alone go as texts; as soon as one is
        an image (a URL, bytes, a path, a PIL image), every input goes as a dict."""
        inputs = self.sanitize_input(inputs)
        model_inputs: List[Dict[str, Any]] = []
        has_images = False

        def add(value: Any) -> None:
            nonlocal has_images
            if isinstance(value, list):
                for item in value:
                    add(item)
            elif isinstance(value, str) and not is_valid_url(value):
                model_inputs.append({"text": value})
            else:
                has_images = True
                model_inputs.append(self._generate_image_input_dict(value))

        for value in inputs:
            add(value)
        if has_images:
            return self._generate_embeddings(model_inputs)
        return self.generate_text_embeddings(inputs)

    def generate_image_embedding(self, image: Any) -> np.ndarray:
        """The embedding of one image (a URL or path, bytes, or a PIL image)."""
        return self._generate_embeddings(input=[self._generate_image_input_dict(image)])[0]

    def generate_text_embeddings(
        self, texts: Union[List[str], np.ndarray], *args: Any, **kwargs: Any
    ) -> list:
        return self._generate_embeddings(input=list(texts))

    def _generate_embeddings(self, input: List[Any], *args: Any, **kwargs: Any) -> list:
        self._init_client()
        response = JinaEmbeddings._session.post(
            API_URL, json={"input": input, "model": self.name}
        ).json()
        if "data" not in response:
            raise RuntimeError(response["detail"])
        return [item["embedding"] for item in sorted(response["data"], key=lambda e: e["index"])]

    def _init_client(self) -> None:
        import requests

        if JinaEmbeddings._session is None:
            api_key = self.api_key or os.environ.get("JINA_API_KEY")
            if api_key is None:
                api_key_not_found_help("jina")
            JinaEmbeddings._session = requests.Session()
            JinaEmbeddings._session.headers.update(
                {"Authorization": f"Bearer {api_key}", "Accept-Encoding": "identity"}
            )
