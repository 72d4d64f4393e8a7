"""karte's Python client: post runs to karted, read them back.

Posting needs only the standard library; reading returns pandas
DataFrames when pandas is installed (lists of dicts otherwise).

    import karte
    k = karte.Client("http://127.0.0.1:8080", token="...")
    k.post_runs([{"system": "a", "application": "md", "p": 4, "n": 100, "tau": 1.5}])
    df = k.runs("a", "md")
"""
from .client import Client, KarteError, __version__

__all__ = ["Client", "KarteError", "__version__"]
