# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``open-clip``: OpenCLIP models, run locally (needs ``open-clip-torch``, ``torch``,
``pillow`` and the weights), as LanceDB's ``OpenClipEmbeddings``: images are stored, text or
image queries search them. The model loads when the function is created."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import PrivateAttr

from ._image import ImageTextEmbeddings, to_pil
from .registry import register
from .utils import attempt_import_or_raise


@register("open-clip")
class OpenClipEmbeddings(ImageTextEmbeddings):
    """An OpenCLIP model.

    Parameters
    ----------
    name : str, default "ViT-B-32"
    pretrained : str, default "laion2b_s34b_b79k"
    device : str, default "cpu"
    batch_size : int, default 64
    normalize : bool, default True
    """

    name: str = "ViT-B-32"
    pretrained: str = "laion2b_s34b_b79k"
    device: str = "cpu"
    batch_size: int = 64
    normalize: bool = True
    _model = PrivateAttr()
    _preprocess = PrivateAttr()
    _tokenizer = PrivateAttr()
    _model_label: ClassVar[str] = "OpenClip"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        open_clip = attempt_import_or_raise("open_clip", "open-clip")
        model, _, preprocess = open_clip.create_model_and_transforms(
            self.name, pretrained=self.pretrained
        )
        model.to(self.device)
        self._model, self._preprocess = model, preprocess
        self._tokenizer = open_clip.get_tokenizer(self.name)
        self._ndims = None

    def _normalized(self, features: Any) -> np.ndarray:
        if self.normalize:
            features /= features.norm(dim=-1, keepdim=True)
        return features.cpu().numpy().squeeze()

    def generate_text_embeddings(self, text: str) -> np.ndarray:
        torch = attempt_import_or_raise("torch")
        tokens = self._tokenizer(self.sanitize_input(text))
        with torch.no_grad():
            return self._normalized(self._model.encode_text(tokens.to(self.device)))

    def generate_image_embedding(self, image: Any) -> np.ndarray:
        torch = attempt_import_or_raise("torch")
        tensor = self._preprocess(to_pil(image)).unsqueeze(0)
        with torch.no_grad():
            return self._encode_and_normalize_image(tensor)

    def _encode_and_normalize_image(self, image_tensor: Any) -> np.ndarray:
        return self._normalized(self._model.encode_image(image_tensor.to(self.device)))
