# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``huggingface`` and ``colbert``: the mean of the last hidden states of a Hugging Face
``transformers`` model, run locally (needs ``transformers``, ``torch`` and the weights), as
LanceDB's ``TransformersEmbeddingFunction`` and ``ColbertEmbeddings``. The model loads when the
function is created."""

from __future__ import annotations

from functools import cached_property
from typing import Any, List

from pydantic import ConfigDict, PrivateAttr

from .utils import attempt_import_or_raise
from .base import EmbeddingFunction
from .registry import register
from .utils import TEXT


@register("huggingface")
class TransformersEmbeddingFunction(EmbeddingFunction):
    """A ``transformers`` model (``AutoModel`` / ``AutoTokenizer``); a text's embedding is
    the mean of its last hidden states.

    Parameters
    ----------
    name : str, default "colbert-ir/colbertv2.0"
    device : str, default "cpu"
    trust_remote_code : bool, default False
    """

    name: str = "colbert-ir/colbertv2.0"
    device: str = "cpu"
    trust_remote_code: bool = False
    _tokenizer: Any = PrivateAttr()
    _model: Any = PrivateAttr()

    model_config = ConfigDict(ignored_types=(cached_property,))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ndims = None
        transformers = attempt_import_or_raise("transformers")
        self._tokenizer = transformers.AutoTokenizer.from_pretrained(self.name)
        self._model = transformers.AutoModel.from_pretrained(
            self.name, trust_remote_code=self.trust_remote_code
        )
        self._model.to(self.device)

    def ndims(self) -> int:
        self._ndims = self._model.config.hidden_size
        return self._ndims

    def compute_query_embeddings(self, query: str, *args: Any, **kwargs: Any) -> list:
        return self.compute_source_embeddings(query)

    def compute_source_embeddings(self, texts: TEXT, *args: Any, **kwargs: Any) -> List[list]:
        embeddings = []
        for text in self.sanitize_input(texts):
            encoding = self._tokenizer(
                text, return_tensors="pt", padding=True, truncation=True
            ).to(self.device)
            hidden = self._model(**encoding).last_hidden_state
            embeddings.append(hidden.mean(dim=1).squeeze().tolist())
        return embeddings


@register("colbert")
class ColbertEmbeddings(TransformersEmbeddingFunction):
    """The ColBERT model through ``transformers`` (mean of its token embeddings)."""

    name: str = "colbert-ir/colbertv2.0"
