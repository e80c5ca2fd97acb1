# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``colpali``: ColPali-family models (ColPali, ColQwen2, ColQwen2.5, ColSmol) through
``colpali_engine``, run locally (needs ``colpali_engine``, ``transformers``, ``torch`` and the
weights), as LanceDB's ``ColPaliEmbeddings``: multivector embeddings (one vector per token)
of page images, searched with text queries."""

from __future__ import annotations

import io
import logging
import warnings
from functools import lru_cache
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from .base import EmbeddingFunction
from .registry import register
from .utils import IMAGES, TEXT, attempt_import_or_raise, is_flash_attn_2_available

_LOG = logging.getLogger(__name__)

# Lower-case model name fragment -> colpali_engine (model, processor) class names; the first
# match wins.
_MODEL_CLASSES = (
    ("colqwen2.5", ("ColQwen2_5", "ColQwen2_5_Processor")),
    ("colsmol", ("ColIdefics3", "ColIdefics3Processor")),
    ("colidefics3", ("ColIdefics3", "ColIdefics3Processor")),
    ("colqwen", ("ColQwen2", "ColQwen2Processor")),
    ("colpali", ("ColPali", "ColPaliProcessor")),
)


def _torch_dtype(torch: Any, dtype: str) -> Any:
    return {"bfloat16": torch.bfloat16, "float16": torch.float16,
            "float64": torch.float64}.get(dtype, torch.float32)  # fmt: skip


@register("colpali")
class ColPaliEmbeddings(EmbeddingFunction):
    """A ColPali-family model.

    Parameters
    ----------
    model_name : str, default "Metric-AI/ColQwen2.5-3b-multilingual-v1.0"
    device : str, default "auto"
        "cuda", else "mps", else "cpu".
    dtype : str, default "bfloat16"
        bfloat16, float16, float32 or float64 (float32 on mps instead of bfloat16).
    use_token_pooling : bool, default True
        Deprecated: False is ``pooling_strategy=None``.
    pooling_strategy : str, optional, default "hierarchical"
        "hierarchical", "lambda" (with `pooling_func`) or None.
    pooling_func : callable, optional
    pool_factor : int, default 2
    quantization_config : transformers.BitsAndBytesConfig, optional
    batch_size : int, default 2
    offload_folder : str, optional
    """

    model_name: str = "Metric-AI/ColQwen2.5-3b-multilingual-v1.0"
    device: str = "auto"
    dtype: str = "bfloat16"
    use_token_pooling: bool = True
    pooling_strategy: Optional[str] = "hierarchical"
    pooling_func: Optional[Any] = None
    pool_factor: int = 2
    quantization_config: Optional[Any] = None
    batch_size: int = 2
    offload_folder: Optional[str] = None
    _model = None
    _processor = None
    _token_pooler = None
    _vector_dim = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        torch = attempt_import_or_raise("torch", "torch")
        if not self.use_token_pooling:
            warnings.warn(
                "use_token_pooling is deprecated, use pooling_strategy=None instead",
                DeprecationWarning,
                stacklevel=2,
            )
            self.pooling_strategy = None
        if self.pooling_strategy == "lambda" and self.pooling_func is None:
            raise ValueError("pooling_func must be provided when pooling_strategy is 'lambda'")
        device = self.device
        if device == "auto":
            if torch.cuda.is_available():
                device = "cuda"
            elif torch.backends.mps.is_available():
                device = "mps"
            else:
                device = "cpu"
        dtype = "float32" if device == "mps" and self.dtype == "bfloat16" else self.dtype
        self._model, self._processor, self._token_pooler = self._load_model(
            self.model_name, dtype, device, self.pooling_strategy, self.pooling_func,
            self.quantization_config,
        )  # fmt: skip

    @staticmethod
    @lru_cache(maxsize=1)
    def _load_model(
        model_name: str,
        dtype: str,
        device: str,
        pooling_strategy: Optional[str],
        pooling_func: Optional[Callable],
        quantization_config: Optional[Any],
    ) -> Tuple[Any, Any, Any]:
        """The (model, processor, token pooler) of this configuration (the last one is
        kept loaded)."""
        if device.startswith("mps"):
            _LOG.warning(
                "MPS device detected. Some operations may result in NaNs. If you encounter "
                "issues, consider using 'cpu' or 'cuda' devices."
            )
        torch = attempt_import_or_raise("torch", "torch")
        transformers = attempt_import_or_raise("transformers", "transformers")
        colpali_engine = attempt_import_or_raise("colpali_engine", "colpali_engine")
        pooling = attempt_import_or_raise("colpali_engine.compression.token_pooling",
                                          "colpali_engine")  # fmt: skip
        if quantization_config is not None and not isinstance(
            quantization_config, transformers.BitsAndBytesConfig
        ):
            raise ValueError("quantization_config must be a BitsAndBytesConfig")
        lowered = model_name.lower()
        names = next((n for fragment, n in _MODEL_CLASSES if fragment in lowered), None)
        if names is None:
            raise ValueError(f"Unsupported model: {model_name}")
        model_class = getattr(colpali_engine.models, names[0])
        processor_class = getattr(colpali_engine.models, names[1])
        torch_dtype = _torch_dtype(torch, dtype)
        model = model_class.from_pretrained(
            model_name,
            torch_dtype=torch_dtype,
            quantization_config=quantization_config,
            attn_implementation="flash_attention_2" if is_flash_attn_2_available() else None,
            low_cpu_mem_usage=True,
        ).eval()
        model = model.to(device).to(torch_dtype)
        processor = processor_class.from_pretrained(model_name)
        pooler = None
        if pooling_strategy == "hierarchical":
            pooler = pooling.HierarchicalTokenPooler()
        elif pooling_strategy == "lambda":
            pooler = pooling.LambdaTokenPooler(pool_func=pooling_func)
        return model, processor, pooler

    def _pool(self, embeddings: Any) -> Any:
        if not (self.pooling_strategy and self._token_pooler is not None):
            return embeddings
        kwargs = {"padding": True, "padding_side": self._processor.tokenizer.padding_side}
        if self.pooling_strategy == "hierarchical":
            kwargs["pool_factor"] = self.pool_factor
        elif self.pooling_strategy != "lambda":
            return embeddings
        return self._token_pooler.pool_embeddings(embeddings, **kwargs)

    def ndims(self) -> int:
        """The dimension of one token vector (embeds a test query once)."""
        torch = attempt_import_or_raise("torch", "torch")
        if self._vector_dim is None:
            batch = self._processor.process_queries(["test"]).to(self._model.device)
            with torch.no_grad():
                embeddings = self._model(**batch)
            self._vector_dim = self._pool(embeddings)[0].shape[-1]
        return self._vector_dim

    def _process_embeddings(self, embeddings: Any) -> list:
        torch = attempt_import_or_raise("torch", "torch")
        embeddings = self._pool(embeddings)
        if not isinstance(embeddings, torch.Tensor):
            return []
        tensors = embeddings.detach().cpu()
        if tensors.dtype == torch.bfloat16:
            tensors = tensors.to(torch.float32)
        out_type = np.float64 if self.dtype == "float64" else np.float32
        return tensors.numpy().astype(out_type).tolist()

    def _embed_batches(self, items: list, process: Callable[[list], Any]) -> list:
        torch = attempt_import_or_raise("torch", "torch")
        embeddings: list = []
        for start in range(0, len(items), self.batch_size):
            batch = process(items[start : start + self.batch_size]).to(self._model.device)
            with torch.no_grad():
                output = self._model(**batch)
            embeddings.extend(self._process_embeddings(torch.nan_to_num(output)))
        return embeddings

    def generate_text_embeddings(self, text: TEXT) -> List[List[List[float]]]:
        return self._embed_batches(list(self.sanitize_input(text)), self._processor.process_queries)

    def _prepare_images(self, images: IMAGES) -> list:
        pil_image = attempt_import_or_raise("PIL.Image", "pillow")
        requests = attempt_import_or_raise("requests", "requests")
        prepared = []
        try:
            for image in self.sanitize_input(images):
                if isinstance(image, str) and image.startswith(("http://", "https://")):
                    response = requests.get(image, timeout=10)
                    response.raise_for_status()
                    prepared.append(pil_image.open(io.BytesIO(response.content)))
                elif isinstance(image, str):
                    with pil_image.open(image) as opened:
                        prepared.append(opened.copy())
                elif isinstance(image, bytes):
                    prepared.append(pil_image.open(io.BytesIO(image)))
                else:
                    prepared.append(image)  # a PIL image (the processor refuses others)
        except Exception as e:  # noqa: BLE001 - LanceDB's error for any unreadable image
            raise ValueError(f"Failed to process image: {e}") from e
        return prepared

    def generate_image_embeddings(self, images: IMAGES) -> List[List[List[float]]]:
        return self._embed_batches(self._prepare_images(images), self._processor.process_images)

    def compute_query_embeddings(self, query: Any, *args: Any, **kwargs: Any) -> list:
        """The multivector of a text query (image queries are refused)."""
        if not isinstance(query, str):
            raise ValueError("Query must be a string, image to image search is not supported")
        return self.generate_text_embeddings([query])

    def compute_source_embeddings(self, images: IMAGES, *args: Any, **kwargs: Any) -> list:
        return self.generate_image_embeddings(self.sanitize_input(images))
