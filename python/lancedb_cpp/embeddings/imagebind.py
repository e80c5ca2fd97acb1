# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``imagebind``: Meta's ImageBind model, run locally (needs the ``imagebind`` package,
``torch`` and the weights), as LanceDB's ``ImageBindEmbeddings``: texts, images and audio
files (told apart by the first input's file extension) in one 1024-dimensional space."""

from __future__ import annotations

from functools import cached_property
from typing import Any, List, Union

import numpy as np
import pyarrow as pa
from pydantic import ConfigDict

from .base import EmbeddingFunction
from .registry import register
from .utils import AUDIO, IMAGES, TEXT, attempt_import_or_raise

_AUDIO_EXTENSIONS = (".mp3", ".wav", ".flac", ".ogg", ".aac")
_IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".bmp")


@register("imagebind")
class ImageBindEmbeddings(EmbeddingFunction):
    """The ImageBind model.

    Parameters
    ----------
    name : str, default "imagebind_huge"
    device : str, default "cpu"
    normalize : bool, default False
    """

    name: str = "imagebind_huge"
    device: str = "cpu"
    normalize: bool = False

    model_config = ConfigDict(ignored_types=(cached_property,))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ndims = 1024
        self._audio_extensions = _AUDIO_EXTENSIONS
        self._image_extensions = _IMAGE_EXTENSIONS

    @cached_property
    def embedding_model(self) -> Any:
        return self.get_embedding_model()

    @cached_property
    def _data(self) -> Any:
        return attempt_import_or_raise("imagebind.data", "imagebind")

    @cached_property
    def _ModalityType(self) -> Any:  # noqa: N802 - LanceDB's name
        return attempt_import_or_raise("imagebind", "imagebind").imagebind_model.ModalityType

    def ndims(self) -> int:
        return self._ndims

    def _embed(self, modality: Any, inputs: Any) -> np.ndarray:
        torch = attempt_import_or_raise("torch")
        with torch.no_grad():
            features = self.embedding_model({modality: inputs})[modality]
            if self.normalize:
                features /= features.norm(dim=-1, keepdim=True)
            return features.cpu().numpy().squeeze()

    def generate_image_embeddings(self, image: IMAGES) -> np.ndarray:
        vision = self._ModalityType.VISION
        return self._embed(vision, self._data.load_and_transform_vision_data(image, self.device))

    def generate_audio_embeddings(self, audio: AUDIO) -> np.ndarray:
        sound = self._ModalityType.AUDIO
        return self._embed(sound, self._data.load_and_transform_audio_data(audio, self.device))

    def generate_text_embeddings(self, text: TEXT) -> np.ndarray:
        modality = self._ModalityType.TEXT
        return self._embed(modality, self._data.load_and_transform_text(text, self.device))

    def _generate(self, inputs: list) -> np.ndarray:
        first = inputs[0]
        if first.endswith(self._audio_extensions):
            return self.generate_audio_embeddings(inputs)
        if first.endswith(self._image_extensions):
            return self.generate_image_embeddings(inputs)
        return self.generate_text_embeddings(inputs)

    def compute_query_embeddings(self, query: str, *args: Any, **kwargs: Any) -> list:
        """The embedding of a text, or of an image or audio file path."""
        return [self._generate(self.sanitize_input(query))]

    def compute_source_embeddings(
        self, source: Union[IMAGES, AUDIO], *args: Any, **kwargs: Any
    ) -> List[np.ndarray]:
        """The embeddings of the stored paths (all audio or all images, by the first one's
        extension) or texts."""
        return list(self._generate(self.sanitize_input(source)))

    def sanitize_input(self, input: Union[IMAGES, AUDIO]) -> Any:
        if isinstance(input, (str, bytes)):
            return [input]
        if isinstance(input, pa.ChunkedArray):
            return input.combine_chunks().to_pylist()
        if isinstance(input, pa.Array):
            return input.to_pylist()
        return input

    def get_embedding_model(self) -> Any:
        """The pretrained ``imagebind_huge`` model, in eval mode on `device`."""
        imagebind = attempt_import_or_raise("imagebind", "imagebind")
        model = imagebind.imagebind_model.imagebind_huge(pretrained=True)
        model.eval()
        model.to(self.device)
        return model
