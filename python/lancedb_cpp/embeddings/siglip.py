# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``siglip``: SigLIP models through ``transformers``, run locally (needs ``transformers``,
``torch``, ``pillow`` and the weights), as LanceDB's (deprecated) ``SigLipEmbeddings``."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from pydantic import PrivateAttr

from ._image import ImageTextEmbeddings, to_pil
from .registry import register
from .utils import attempt_import_or_raise


@register("siglip")
class SigLipEmbeddings(ImageTextEmbeddings):
    """A SigLIP model.

    Parameters
    ----------
    model_name : str, default "google/siglip-base-patch16-224"
    device : str, default "cpu"
    batch_size : int, default 64
    normalize : bool, default True
    """

    model_name: str = "google/siglip-base-patch16-224"
    device: str = "cpu"
    batch_size: int = 64
    normalize: bool = True
    _model = PrivateAttr()
    _processor = PrivateAttr()
    _tokenizer = PrivateAttr()
    _torch = PrivateAttr()
    _model_label: ClassVar[str] = "SigLIP"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        warnings.warn(
            "SigLip embeddings are deprecated. Use CLIP embeddings via the 'open-clip' "
            "embedding function instead.",
            DeprecationWarning,
            stacklevel=3,
        )
        transformers = attempt_import_or_raise("transformers")
        self._torch = attempt_import_or_raise("torch")
        self._processor = transformers.AutoProcessor.from_pretrained(self.model_name)
        self._model = transformers.SiglipModel.from_pretrained(self.model_name)
        self._model.to(self.device)
        self._model.eval()
        self._ndims = None

    def _normalized(self, features: Any) -> np.ndarray:
        if self.normalize:
            features = features / features.norm(dim=-1, keepdim=True)
        return features.cpu().detach().numpy().squeeze()

    def generate_text_embeddings(self, text: str) -> np.ndarray:
        inputs = self._processor(
            text=text, return_tensors="pt", padding="max_length", truncation=True,
            max_length=64,
        ).to(self.device)  # fmt: skip
        with self._torch.no_grad():
            return self._normalized(self._model.get_text_features(**inputs))

    def generate_image_embedding(self, image: Any) -> np.ndarray:
        pixels = self._processor(images=to_pil(image, rgb=True), return_tensors="pt")
        return self._encode_and_normalize_image(pixels["pixel_values"])

    def _encode_and_normalize_image(self, image_tensor: Any) -> np.ndarray:
        with self._torch.no_grad():
            return self._normalized(self._model.get_image_features(image_tensor.to(self.device)))
