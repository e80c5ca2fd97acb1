# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""What the local image-and-text models (open-clip, siglip) share: reading an image input
(bytes, a PIL image, a local path or file URL, an http(s) URL) and embedding a column of
images in batches, each batch's images in parallel threads."""

from __future__ import annotations

import concurrent.futures
import io
import os
import urllib.parse
from typing import Any, ClassVar, List

import numpy as np
import pyarrow as pa

from .base import EmbeddingFunction
from .utils import IMAGES, attempt_import_or_raise, url_retrieve


def to_pil(image: Any, rgb: bool = False) -> Any:
    """The PIL image of an input (bytes, a PIL image, a path, a file or http(s) URL);
    NotImplementedError for another URL scheme, ValueError for another type."""
    pil_image = attempt_import_or_raise("PIL.Image", "pillow")
    if isinstance(image, pil_image.Image):
        img = image
    elif isinstance(image, bytes):
        img = pil_image.open(io.BytesIO(image))
    elif isinstance(image, str):
        parsed = urllib.parse.urlparse(image)
        if parsed.scheme == "file":
            img = pil_image.open(parsed.path)
        elif parsed.scheme == "":
            img = pil_image.open(image if os.name == "nt" else parsed.path)
        elif parsed.scheme.startswith("http"):
            img = pil_image.open(io.BytesIO(url_retrieve(image)))
        else:
            raise NotImplementedError("Only local and http(s) urls are supported")
    else:
        raise ValueError(f"Unsupported image type: {type(image)}")
    return img.convert("RGB") if rgb and img.mode != "RGB" else img


class ImageTextEmbeddings(EmbeddingFunction):
    """Base of the models that embed both texts (queries) and images (the stored column).
    Subclasses implement ``generate_text_embeddings(text)`` and
    ``generate_image_embedding(image)`` (one vector each)."""

    batch_size: int = 64
    _model_label: ClassVar[str] = "The model"

    def ndims(self) -> int:
        if self._ndims is None:
            self._ndims = self.generate_text_embeddings("foo").shape[0]
        return self._ndims

    def compute_query_embeddings(self, query: Any, *args: Any, **kwargs: Any) -> List[np.ndarray]:
        """The embedding of a text or a PIL image query."""
        if isinstance(query, str):
            return [self.generate_text_embeddings(query)]
        pil_image = attempt_import_or_raise("PIL.Image", "pillow")
        if isinstance(query, pil_image.Image):
            return [self.generate_image_embedding(query)]
        raise TypeError(f"{self._model_label} supports str or PIL Image as query")

    def sanitize_input(self, images: IMAGES) -> Any:
        if isinstance(images, (str, bytes)):
            return [images]
        if isinstance(images, pa.ChunkedArray):
            return images.combine_chunks().to_pylist()
        if isinstance(images, pa.Array):
            return images.to_pylist()
        return images

    def compute_source_embeddings(self, images: IMAGES, *args: Any, **kwargs: Any) -> list:
        """The embeddings of the stored images, batch_size at a time."""
        images = self.sanitize_input(images)
        embeddings: list = []
        for start in range(0, len(images), self.batch_size):
            embeddings.extend(self._parallel_get(images[start : start + self.batch_size]))
        return embeddings

    def _parallel_get(self, images: list) -> List[np.ndarray]:
        with concurrent.futures.ThreadPoolExecutor() as executor:
            return list(executor.map(self.generate_image_embedding, images))
