"""Module C retrieval (SEMV §4.3): evidence sources behind one protocol, the local FTS5
corpus, web search adapters, guarded page fetching, the dated replay cache and the
temporal-leakage guard."""

from semv.nlp.dates import iso_date, published_after
from semv.retrieval._cache import CacheEntry, ReplayCache, cache_key
from semv.retrieval._corpus import CorpusHit, IngestStats, LocalCorpus, fts_query
from semv.retrieval._documents import Document, extract_html, read_claimreview, read_documents
from semv.retrieval._evaluate import evaluate_retrieval
from semv.retrieval._http import (
    FetchRefused,
    HttpClient,
    HttpLimits,
    HttpResponse,
    PrivateAddressRefused,
    RetrievalError,
    check_url,
)
from semv.retrieval._images import (
    IMAGE_API_NAMES,
    REVERSE_DIMENSIONS,
    ImageMatch,
    ImageQuery,
    ImageSource,
    ReverseImageSource,
    SerpApiLensApi,
    TinEyeApi,
    image_queries,
    make_image_api,
)
from semv.retrieval._priors import Prior, SourcePriors, load_priors
from semv.retrieval._relevance import (
    Relevance,
    RelevanceGate,
    RelevanceModel,
    claim_relevance,
    load_relevance_model,
    relevance_gate,
)
from semv.retrieval._rerank import E5Reranker, passage_vector, query_vector
from semv.retrieval._runtime import (
    ExternalResult,
    Retrieval,
    exclude_after,
    open_retrieval,
    reopen_retrieval,
    search_plan,
)
from semv.retrieval._scan import Scan, is_semv_tree, scan_documents
from semv.retrieval._source import CorpusSource, EvidenceSource, evidence_id
from semv.retrieval._web import (
    API_NAMES,
    BraveApi,
    GdeltApi,
    PageFetcher,
    SearxngApi,
    SerperApi,
    WebSearchSource,
    make_api,
)

__all__ = [
    "API_NAMES",
    "IMAGE_API_NAMES",
    "REVERSE_DIMENSIONS",
    "BraveApi",
    "CacheEntry",
    "CorpusHit",
    "CorpusSource",
    "Document",
    "E5Reranker",
    "EvidenceSource",
    "ExternalResult",
    "FetchRefused",
    "GdeltApi",
    "HttpClient",
    "HttpLimits",
    "HttpResponse",
    "ImageMatch",
    "ImageQuery",
    "ImageSource",
    "IngestStats",
    "LocalCorpus",
    "PageFetcher",
    "Prior",
    "PrivateAddressRefused",
    "Relevance",
    "RelevanceGate",
    "RelevanceModel",
    "ReplayCache",
    "Retrieval",
    "RetrievalError",
    "ReverseImageSource",
    "Scan",
    "SearxngApi",
    "SerpApiLensApi",
    "SerperApi",
    "SourcePriors",
    "TinEyeApi",
    "WebSearchSource",
    "cache_key",
    "check_url",
    "claim_relevance",
    "evaluate_retrieval",
    "evidence_id",
    "exclude_after",
    "extract_html",
    "fts_query",
    "image_queries",
    "is_semv_tree",
    "iso_date",
    "load_priors",
    "load_relevance_model",
    "make_api",
    "make_image_api",
    "open_retrieval",
    "passage_vector",
    "published_after",
    "query_vector",
    "read_claimreview",
    "read_documents",
    "relevance_gate",
    "reopen_retrieval",
    "scan_documents",
    "search_plan",
]
