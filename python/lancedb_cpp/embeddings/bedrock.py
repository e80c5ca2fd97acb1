# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``bedrock-text``: AWS Bedrock text embeddings (Titan, Cohere) over ``boto3``, as LanceDB's
``BedRockText``. Credentials and the endpoint come from boto3's usual configuration (profile,
environment, an assumed role)."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any, List, Optional, Union

import numpy as np
from pydantic import ConfigDict

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .openai import _without_clients
from .registry import register
from .utils import TEXT

_HELP = (
    "Please check the AWS credentials (a profile, environment variables or an assumed role) "
    "and that the model is enabled for Bedrock in this region."
)

_DIMS = {
    "amazon.titan-embed-text-v1": 1536,
    "amazon.titan-embed-text-v2:0": 1024,
    "cohere.embed-english-v3": 1024,
    "cohere.embed-multilingual-v3": 1024,
}


@register("bedrock-text")
class BedRockText(TextEmbeddingFunction):
    """Bedrock embedding models.

    Parameters
    ----------
    name : str, default "amazon.titan-embed-text-v1"
        amazon.titan-embed-text-v1, amazon.titan-embed-text-v2:0, cohere.embed-english-v3 or
        cohere.embed-multilingual-v3.
    region : str, default "us-east-1"
    assumed_role : str, optional
        A role ARN to assume (through STS) for the calls.
    profile_name : str, optional
        The AWS profile of the session.
    role_session_name : str, default "lancedb-embeddings"
    source_input_type, query_input_type : str
        The Cohere models' input types ("search_document" / "search_query").
    """

    name: str = "amazon.titan-embed-text-v1"
    region: str = "us-east-1"
    assumed_role: Optional[str] = None
    profile_name: Optional[str] = None
    role_session_name: str = "lancedb-embeddings"
    source_input_type: str = "search_document"
    query_input_type: str = "search_query"

    model_config = ConfigDict(ignored_types=(cached_property,))

    def ndims(self) -> int:
        if self.name not in _DIMS:
            raise ValueError(f"Model {self.name} not supported")
        return _DIMS[self.name]

    def compute_query_embeddings(self, query: str, *args: Any, **kwargs: Any) -> list:
        return self.compute_source_embeddings(query, input_type=self.query_input_type)

    def compute_source_embeddings(self, texts: TEXT, *args: Any, **kwargs: Any) -> list:
        kwargs["input_type"] = kwargs.get("input_type") or self.source_input_type
        return self.generate_embeddings(self.sanitize_input(texts), **kwargs)

    def generate_embeddings(
        self, texts: Union[List[str], np.ndarray], *args: Any, **kwargs: Any
    ) -> List[List[float]]:
        """One ``invoke_model`` call per text."""
        return [self._generate_embedding(text, *args, **kwargs) for text in texts]

    def _generate_embedding(self, text: str, *args: Any, **kwargs: Any) -> List[float]:
        cohere = self.name.split(".")[0] == "cohere"
        body = dict(kwargs)
        if cohere:
            body["texts"] = [text]
        else:
            body.pop("input_type", None)
            body["inputText"] = text
        try:
            response = self.client.invoke_model(
                body=json.dumps(body), modelId=self.name,
                accept="application/json", contentType="application/json",
            )  # fmt: skip
            payload = json.loads(response.get("body").read())
        except Exception as e:  # noqa: BLE001 - LanceDB's error type for any client failure
            raise ValueError(f"Error raised by boto3 client: {e}. \n {_HELP}") from e
        return payload.get("embeddings")[0] if cohere else payload.get("embedding")

    @cached_property
    def client(self) -> Any:
        """The ``bedrock-runtime`` client (retries off: the embedding function retries)."""
        botocore = attempt_import_or_raise("botocore")
        attempt_import_or_raise("botocore.config")
        boto3 = attempt_import_or_raise("boto3")
        client_kwargs: dict = {"region_name": self.region}
        config = botocore.config.Config(
            region_name=self.region, retries={"max_attempts": 0, "mode": "standard"}
        )
        if self.profile_name:
            session = boto3.Session(region_name=self.region, profile_name=self.profile_name)
        else:
            session = boto3.Session()
        if self.assumed_role:
            credentials = session.client("sts").assume_role(
                RoleArn=str(self.assumed_role), RoleSessionName=self.role_session_name
            )["Credentials"]
            client_kwargs["aws_access_key_id"] = credentials["AccessKeyId"]
            client_kwargs["aws_secret_access_key"] = credentials["SecretAccessKey"]
            client_kwargs["aws_session_token"] = credentials["SessionToken"]
        return session.client(service_name="bedrock-runtime", config=config, **client_kwargs)

    def __getstate__(self) -> dict:
        return _without_clients(super().__getstate__(), "client")
