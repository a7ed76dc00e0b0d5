"""The web page the host serves: three fixed files from the package, and nothing else from disk.

The page's words are filled in from ``[messages.web]`` of the prompts file (HTML-escaped), so the
page speaks the host's language like every other output.
"""

from __future__ import annotations

import html
import re
from importlib import resources

from aiohttp import web

__all__ = ["STATIC", "Page"]

STATIC = {"/": ("index.html", "text/html"), "/page.js": ("page.js", "text/javascript"),
          "/page.css": ("page.css", "text/css")}
"""Every file the server serves: these, from the package, and nothing else."""
_UNFILLED = re.compile(r"\{\{\w+\}\}")
_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


class Page:
    """The page, its words filled in once; :meth:`serve` answers the three paths of :data:`STATIC`."""

    def __init__(self, words: dict[str, str]) -> None:
        page = _read("index.html")
        for key, text in words.items():
            page = page.replace("{{" + key + "}}", html.escape(text, quote=True))
        self.html = _UNFILLED.sub("", page)  # words of the other game

    async def serve(self, request: web.Request) -> web.Response:
        name, content_type = STATIC[request.path]
        text = self.html if name == "index.html" else _read(name)
        return web.Response(text=text, content_type=content_type, headers=_HEADERS)


def _read(name: str) -> str:
    return resources.files(__package__).joinpath(f"static/{name}").read_text(encoding="utf-8")
