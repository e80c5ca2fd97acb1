# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``instructor``: embeddings of the InstructorEmbedding library's models (run locally; needs
the ``InstructorEmbedding`` and ``torch`` packages and the model's weights), as LanceDB's
``InstructorEmbeddingFunction``. Each text is sent with an instruction."""

from __future__ import annotations

from typing import Any, List

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .registry import register
from .utils import TEXT, weak_lru


@register("instructor")
class InstructorEmbeddingFunction(TextEmbeddingFunction):
    """Instructor models: each text is embedded with an instruction ("Represent the `domain`
    `text_type` for `task_objective`").

    Parameters
    ----------
    name : str, default "hkunlp/instructor-base"
    batch_size : int, default 32
    device : str, default "cpu"
    show_progress_bar : bool, default True
    normalize_embeddings : bool, default True
    quantize : bool, default False
        Quantize the model's linear layers to int8 (torch dynamic quantization).
    source_instruction : str, default "represent the document for retrieval"
    query_instruction : str, default "represent the document for retrieving the most
        similar documents"
    """

    name: str = "hkunlp/instructor-base"
    batch_size: int = 32
    device: str = "cpu"
    show_progress_bar: bool = True
    normalize_embeddings: bool = True
    quantize: bool = False
    source_instruction: str = "represent the document for retrieval"
    query_instruction: str = "represent the document for retrieving the most similar documents"

    @weak_lru(maxsize=1)
    def ndims(self) -> int:
        """The model's dimension (embeds one text with the source instruction)."""
        return len(self.generate_embeddings([[self.source_instruction, "foo"]])[0])

    def compute_query_embeddings(self, query: str, *args: Any, **kwargs: Any) -> list:
        return self.generate_embeddings([[self.query_instruction, query]])

    def compute_source_embeddings(self, texts: TEXT, *args: Any, **kwargs: Any) -> list:
        texts = self.sanitize_input(texts)
        return self.generate_embeddings([[self.source_instruction, text] for text in texts])

    def generate_embeddings(self, texts: List) -> List:
        """The embeddings of ``[instruction, text]`` pairs."""
        return self.get_model().encode(
            texts,
            batch_size=self.batch_size,
            show_progress_bar=self.show_progress_bar,
            normalize_embeddings=self.normalize_embeddings,
            device=self.device,
        ).tolist()

    @weak_lru(maxsize=1)
    def get_model(self) -> Any:
        """The loaded ``INSTRUCTOR`` model (ImportError naming the missing package)."""
        instructor_embedding = attempt_import_or_raise("InstructorEmbedding", "InstructorEmbedding")
        torch = attempt_import_or_raise("torch", "torch")
        model = instructor_embedding.INSTRUCTOR(self.name)
        if self.quantize:
            if "qnnpack" in torch.backends.quantized.supported_engines:
                torch.backends.quantized.engine = "qnnpack"
            model = torch.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        return model
