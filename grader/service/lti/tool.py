"""Everything the LTI side needs to talk to platforms, in one object per course: the
database, the tool's key, one HTTP client, the platforms' key sets and the service tokens.

    tool = Tool.open(store, Path("ttt-course"))
    ...
    tool.close()
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import httpx

from grader.service.course.storage import Store
from grader.service.lti.keysets import KeySets
from grader.service.lti.platforms import service_hosts
from grader.service.lti.service_token import ServiceTokens
from grader.service.lti.tool_keys import ToolKey

HTTP_TIMEOUT = httpx.Timeout(10.0, connect=5.0)   # a platform that hangs costs 10 s, no more


@dataclass
class Tool:
    """The course's LTI tool: ``store``, ``data`` (its folder), ``key``, ``http``,
    ``keysets`` and ``tokens``; ``allow_private``: Dynamic Registration may call private
    and loopback addresses (serve --lti-allow-private)."""

    store: Store
    data: Path
    key: ToolKey
    http: httpx.Client
    keysets: KeySets
    tokens: ServiceTokens
    allow_private: bool = False

    @classmethod
    def open(cls, store: Store, data: Path, http: httpx.Client | None = None,
             allow_private: bool = False) -> "Tool":
        """The tool of the course in ``data`` (its key made on the first call)."""
        key = ToolKey.load(data)
        client = http or httpx.Client(timeout=HTTP_TIMEOUT, follow_redirects=False,
                                      headers={"user-agent": "ttt-minimax-grader LTI tool"})
        tokens = ServiceTokens(key, client, hosts=lambda platform: service_hosts(store,
                                                                                 platform))
        return cls(store, Path(data), key, client, KeySets(client), tokens, allow_private)

    def close(self) -> None:
        self.http.close()
