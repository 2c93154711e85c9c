"""A feature-flag service in FastAPI on uvicorn, written as FastAPI's
documentation shows (StreamingResponse for the change streams, the
GZipMiddleware for compression), with the Server-Sent Events framing of
sse-starlette's defaults: CRLF line ends and ": ping" comments.

    GET    /flags                  {"version": N, "items": [...]}, ETag "N", 304 on If-None-Match
    GET    /flags?size=M&page=P    page P (from 1) of M flags, with "next": the next page's URL or null
    GET    /flags/events           SSE from the Last-Event-ID header (or ?since=N)
    GET    /flags/changes?since=N  NDJSON: {"type": "flag.updated", "flag": {...}, "version": N}
    PUT    /flags/{key}            create or update: {"enabled": true, "rollout": 10}
    DELETE /flags/{key}            delete
    POST   /admin/drop             end every open stream (a load balancer's cut)
    POST   /admin/garble?n=K       send the next K changes with their data cut in half (a serializer's bug)
    POST   /admin/break?n=K        answer the next K stream requests with a proxy's 502 HTML page
    GET    /admin/keys             {"keys": N}: how many requests carried an X-Api-Key header

With &link=1, a page's next page is in a Link header whose URL holds a
comma (&fields=key,version), as RFC 8288 allows, instead of "next".
--close-after-send ends every SSE stream right after the changes it had to
send (a close-after-send endpoint), with --retry MS as its retry field;
--ignore-last-event-id replays every SSE stream from the first change of
the history, whatever version it is asked for.

State is in memory, with one integer version that every write increases;
the change history starts when the service does, so a client resuming from
an older version gets 410 Gone and must list again.

The Go tests of this directory run it as
    python3 flags.py --fd 3 --start-version N --flags K --seed S [--gzip] [--ping SECONDS] [--reset-event]
        [--close-after-send] [--retry MS] [--ignore-last-event-id]
on a listening socket they pass as file descriptor 3; it exits when its
standard input closes (the test ended) or after --max-seconds.
"""

import argparse
import asyncio
import bisect
import json
import os
import socket
import sys
import threading
from typing import Optional

import uvicorn
from fastapi import FastAPI, Header, HTTPException, Query, Request, Response
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from pydantic import BaseModel


class FlagIn(BaseModel):
    enabled: bool = False
    rollout: int = 0


class Store:
    """The flags, the version and the change history, used from the event
    loop only."""

    def __init__(self, start_version: int, count: int, seed: int):
        self.version = start_version
        self.flags = {}
        for i in range(count):
            self.version += 1
            key = f"seed-{i:02d}"
            self.flags[key] = {
                "key": key,
                "enabled": (i + seed) % 2 == 0,
                "rollout": (i * 7 * (seed + 1)) % 101,
                "version": self.version,
            }
        self.first = self.version  # the oldest version a stream resumes from
        self.history = []  # changes, by version
        self.versions = []  # their versions, for bisect
        self.changed = asyncio.Event()
        self.drop = asyncio.Event()
        self.garble = 0  # how many of the next changes to garble
        self.garbled = set()  # versions of the garbled changes
        self.broken = 0  # how many of the next stream requests fail
        self.keys = 0  # requests that carried an X-Api-Key header

    def record(self, typ: str, flag: dict, version: int) -> None:
        if self.garble > 0:
            self.garbled.add(version)
            self.garble -= 1
        self.history.append({"type": typ, "flag": flag, "version": version})
        self.versions.append(version)
        self.changed.set()
        self.changed = asyncio.Event()

    def after(self, version: int) -> list:
        return self.history[bisect.bisect_right(self.versions, version):]


def create_app(store: Store, gzip: bool, ping: Optional[float], reset_event: bool,
               close_after_send: bool = False, retry: Optional[int] = None, replay: bool = False) -> FastAPI:
    app = FastAPI(title="flags")
    if gzip:
        app.add_middleware(GZipMiddleware)

    @app.middleware("http")
    async def count_keys(request: Request, call_next):
        if "x-api-key" in request.headers:
            store.keys += 1
        return await call_next(request)

    @app.get("/admin/keys")
    async def keys():
        return {"keys": store.keys}

    @app.get("/flags")
    async def list_flags(
        request: Request,
        if_none_match: Optional[str] = Header(default=None),
        size: Optional[int] = Query(default=None, ge=1),
        page: int = Query(default=1, ge=1),
        link: Optional[str] = Query(default=None),
    ):
        etag = f'"{store.version}"'
        if if_none_match == etag:
            return Response(status_code=304, headers={"ETag": etag})
        items = [store.flags[k] for k in sorted(store.flags)]
        body = {"version": store.version, "items": items}
        if size is not None:
            body["items"] = items[(page - 1) * size : page * size]
            more = page * size < len(items)
            body["next"] = str(request.url.include_query_params(page=page + 1)) if more else None
            if link is not None:
                del body["next"]
                if more:
                    nxt = f"{request.url.path}?size={size}&page={page + 1}&link=1&fields=key,version"
                    return JSONResponse(body, headers={"ETag": etag, "Link": f'<{nxt}>; rel="next"'})
        return JSONResponse(body, headers={"ETag": etag})

    @app.put("/flags/{key}")
    async def put_flag(key: str, body: FlagIn, response: Response):
        created = key not in store.flags
        store.version += 1
        flag = {"key": key, "enabled": body.enabled, "rollout": body.rollout, "version": store.version}
        store.flags[key] = flag
        store.record("flag.created" if created else "flag.updated", flag, store.version)
        response.status_code = 201 if created else 200
        return flag

    @app.delete("/flags/{key}")
    async def delete_flag(key: str):
        flag = store.flags.pop(key, None)
        if flag is None:
            raise HTTPException(status_code=404, detail=f"no flag {key}")
        store.version += 1
        store.record("flag.deleted", flag, store.version)
        return {"version": store.version}

    @app.post("/admin/drop", status_code=204)
    async def drop_streams():
        store.drop.set()
        store.drop = asyncio.Event()
        return Response(status_code=204)

    @app.post("/admin/garble", status_code=204)
    async def garble_next(n: int):
        store.garble = n
        return Response(status_code=204)

    @app.post("/admin/break", status_code=204)
    async def break_next(n: int):
        store.broken = n
        return Response(status_code=204)

    def failed_stream() -> Optional[Response]:
        if store.broken > 0:
            store.broken -= 1
            return HTMLResponse("<html><body><h1>502 Bad Gateway</h1></body></html>\n", status_code=502)
        return None

    def resume_from(last_event_id: Optional[str], since: Optional[str]) -> Optional[int]:
        """The version a stream resumes from; None if it is outside the
        history and the stream is to say so with a reset event."""
        raw = last_event_id if last_event_id is not None else since
        if raw is None:
            return store.version
        try:
            version = int(raw)
        except ValueError:
            raise HTTPException(status_code=400, detail="Last-Event-ID must be an integer")
        if version < store.first or version > store.version:
            if reset_event:
                return None
            raise HTTPException(status_code=410, detail=f"version {version} is not in this service's history")
        return version

    async def wait_any(*events: asyncio.Event) -> None:
        tasks = [asyncio.ensure_future(e.wait()) for e in events]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()

    async def changes_after(version: Optional[int], encode, keep_alive: str, reset: str):
        if version is None:
            yield reset
            return
        drop = store.drop
        while True:
            batch = store.after(version)
            for change in batch:
                yield encode(change)
                version = change["version"]
            if batch and close_after_send:
                return
            if batch:
                continue
            if drop.is_set():
                return
            try:
                await asyncio.wait_for(wait_any(store.changed, drop), ping)
            except asyncio.TimeoutError:
                yield keep_alive

    def sse(change: dict) -> str:
        data = json.dumps(change["flag"], separators=(",", ":"))
        if change["version"] in store.garbled:
            data = data[: len(data) // 2]
        return f"id: {change['version']}\r\nevent: {change['type']}\r\ndata: {data}\r\n\r\n"

    def ndjson(change: dict) -> str:
        line = json.dumps(change, separators=(",", ":"))
        if change["version"] in store.garbled:
            line = line[: len(line) // 2]
        return line + "\n"

    @app.get("/flags/events")
    async def events(since: Optional[str] = None, last_event_id: Optional[str] = Header(default=None)):
        failed = failed_stream()
        if failed:
            return failed
        version = resume_from(last_event_id, since)
        if replay and version is not None:
            version = store.first  # the whole history, whatever was asked

        async def stream():
            if retry is not None:
                yield f"retry: {retry}\r\n\r\n"
            async for chunk in changes_after(version, sse, ": ping\r\n\r\n", "event: reset\r\ndata: history lost\r\n\r\n"):
                yield chunk

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    @app.get("/flags/changes")
    async def changes(since: Optional[str] = None):
        failed = failed_stream()
        if failed:
            return failed
        version = resume_from(None, since)
        return StreamingResponse(
            changes_after(version, ndjson, "\n", '{"type":"reset"}\n'), media_type="application/x-ndjson"
        )

    return app


def exit_when_stdin_closes() -> None:
    sys.stdin.buffer.read()
    os._exit(0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fd", type=int, required=True, help="a listening TCP socket")
    p.add_argument("--start-version", type=int, default=0)
    p.add_argument("--flags", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gzip", action="store_true")
    p.add_argument("--ping", type=float, default=None, help="keep-alive period of quiet streams, seconds")
    p.add_argument("--reset-event", action="store_true", help="a reset event, not 410, for versions outside the history")
    p.add_argument("--close-after-send", action="store_true", help="end each SSE stream after the changes it sent")
    p.add_argument("--retry", type=int, default=None, help="an SSE retry field, in milliseconds, at each stream's start")
    p.add_argument("--ignore-last-event-id", action="store_true", help="replay each SSE stream from the start of the history")
    p.add_argument("--max-seconds", type=float, default=300)
    args = p.parse_args()

    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    deadline = threading.Timer(args.max_seconds, os._exit, (3,))
    deadline.daemon = True
    deadline.start()

    async def serve() -> None:
        store = Store(args.start_version, args.flags, args.seed)
        app = create_app(store, args.gzip, args.ping, args.reset_event,
                         args.close_after_send, args.retry, args.ignore_last_event_id)
        config = uvicorn.Config(app, log_level="warning")
        await uvicorn.Server(config).serve(sockets=[socket.socket(fileno=args.fd)])

    asyncio.run(serve())


if __name__ == "__main__":
    main()
