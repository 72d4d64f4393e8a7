"""karte's Python client: post runs to karted, read them back.

Posting needs only the standard library; reading returns pandas
DataFrames (install the extra: pip install 'karte[pandas]', or Debian's
python3-pandas).

    import karte
    k = karte.Client("http://127.0.0.1:8080", token="...")
    posted = k.post_runs([{"system": "a", "application": "md", "p": 4, "n": 100, "tau": 1.5}])
    posted.ids, posted.verdicts, posted.spooled
    df = k.runs("a", "md")
"""
from ._version import __version__
from .client import (AuthError, BadRequest, Client, ConnectionFailed, KarteError, NotFound, PostResult,
                     Unavailable)

__all__ = ["Client", "PostResult", "KarteError", "ConnectionFailed", "AuthError", "BadRequest", "NotFound",
           "Unavailable", "__version__"]
