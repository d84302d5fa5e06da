"""The ``Hedron`` application class (a FastAPI subclass)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response
from starlette.types import ASGIApp

from hedron._blocking import run_blocking
from hedron._middleware import HedronMiddleware
from hedron._respond import Mode, component_response, page_vary, with_request
from hedron._routes import HedronRoute
from hedron._static import static_endpoint
from hedron.csrf import csrf_protect
from hedron_core import Component
from hedron_core._html import check_path_prefix
from hedron_core.security import SAFE_METHODS, Profile, check_profile, check_session_secret

__all__ = ["Hedron"]

F = TypeVar("F", bound=Callable[..., Any])
Explorer = Literal["off", "development"]


class Hedron(FastAPI):
    """A FastAPI application that renders hedron components.

    Adds sessions (``request.session``, a signed ``hedron_session`` cookie), security
    headers, CSRF protection, hedron's static files (htmx and the stylesheet, same origin),
    ``@app.page`` / ``@app.action`` routes and an optional component explorer. Plain
    ``@app.get``/``@app.post`` routes behave as in FastAPI, except that a component they
    return is answered as HTML the way ``@app.page`` answers it (not as JSON).

    Args:
        title: Application title (also the default document title).
        security: ``"development"``, ``"standard"`` (default) or ``"strict"``.
        explorer: ``"development"`` mounts the component explorer at
            ``/_hedron/explorer``; ``"off"`` (default) mounts nothing.
        session_secret: Key signing the session cookie (>= 32 random characters). Missing or
            placeholder values warn, and are refused when ``HEDRON_ENV=production`` or
            ``security="strict"``.
        job_backend: Optional job backend (see ``hedron_core.jobs``); stored as
            ``app.job_backend`` and made current in every request
            (``hedron.jobs.bind_job_backend``).
        static_prefix: Root-relative URL of hedron's static files.
        **fastapi_kwargs: Passed to ``FastAPI`` (the OpenAPI/Swagger pages are off unless
            ``docs_url``/``openapi_url`` are given, as they load off-origin assets).

    Example:
        >>> app = Hedron(title="Demo", session_secret=secrets.token_urlsafe(48))  # doctest: +SKIP
        >>> @app.page("/")  # doctest: +SKIP
        ... def home() -> Page:
        ...     return Page(Text("Hello"), title="Home")
    """

    def __init__(
        self,
        *,
        title: str = "Hedron",
        security: Profile = "standard",
        explorer: Explorer = "off",
        session_secret: str | None = None,
        job_backend: Any = None,
        static_prefix: str = "/_hedron/static",
        **fastapi_kwargs: Any,
    ) -> None:
        profile = check_profile(security)
        if explorer not in ("off", "development"):
            raise ValueError(f"Hedron.explorer must be 'off' or 'development'; got {explorer!r}")
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"Hedron.title must be a non-empty str, got {title!r}")
        check_path_prefix(static_prefix, where="Hedron.static_prefix", example="/_hedron/static")
        secret = check_session_secret(session_secret, profile=profile)
        for key in ("docs_url", "redoc_url", "openapi_url"):
            fastapi_kwargs.setdefault(key, None)
        super().__init__(title=title, **fastapi_kwargs)
        # Plain @app.get/@app.post routes answer a returned component as HTML.
        self.router.route_class = HedronRoute
        self.security_profile: Profile = profile
        self.explorer_mode: Explorer = explorer
        self.static_prefix = static_prefix
        #: The job backend given to the constructor (``None`` when not configured).
        self.job_backend: Any = job_backend
        # Wrapped around the whole stack in build_middleware_stack(), outside Starlette's
        # error middleware, so even an unhandled error's 500 carries the security headers.
        self._hedron_options: dict[str, Any] = {"secret": secret, "profile": profile}
        if job_backend is not None:
            # Makes the backend current in every request (enqueue_durable() without backend=).
            from hedron.jobs import bind_job_backend
            from hedron.jobs._binding import check_backend

            check_backend(job_backend, where="Hedron.job_backend")
            bind_job_backend(self, job_backend)
        self.add_route(
            f"{static_prefix}/{{name:path}}",
            static_endpoint,
            methods=["GET", "HEAD"],
            name="hedron-static",
            include_in_schema=False,
        )
        if explorer == "development":
            from hedron._explorer import EXPLORER_NAME, EXPLORER_PATH, hedron_explorer

            self.page(EXPLORER_PATH, name=EXPLORER_NAME)(hedron_explorer)

    # -- hedron routes -------------------------------------------------------------------

    def build_middleware_stack(self) -> ASGIApp:
        """The FastAPI stack wrapped in :class:`HedronMiddleware` (headers, sessions, CSRF)."""
        return HedronMiddleware(super().build_middleware_stack(), **self._hedron_options)

    def page(
        self,
        path: str,
        *,
        methods: Sequence[str] = ("GET",),
        name: str | None = None,
        dependencies: Sequence[Any] | None = None,
        **route_kwargs: Any,
    ) -> Callable[[F], F]:
        """Register a page: the handler returns a component (usually a ``Page``).

        A normal request gets a full HTML document; an htmx request (``HX-Request: true``)
        gets only the body fragment. Responses carry ``Vary: HX-Request``. Unsafe methods
        are CSRF-protected. Handlers may be ``def`` or ``async def``, take FastAPI
        parameters (``Request``, path/query params, ``Depends``) and may return a
        ``Response`` instead of a component.

        Args:
            path: Route path (FastAPI syntax).
            methods: HTTP methods (default ``GET``).
            name: Route name (default: the function name).
            dependencies: Extra FastAPI dependencies.
            **route_kwargs: Passed to ``add_api_route``.

        Example:
            >>> @app.page("/")  # doctest: +SKIP
            ... def home() -> Page:
            ...     return Page(Text("Hello"), title="Home")
        """
        return self._route(path, "page", methods, name, dependencies, route_kwargs)

    def action(
        self,
        path: str,
        *,
        methods: Sequence[str] = ("POST",),
        name: str | None = None,
        dependencies: Sequence[Any] | None = None,
        **route_kwargs: Any,
    ) -> Callable[[F], F]:
        """Register an action: the handler's component is answered as a fragment.

        Use it for form posts and buttons (``Button(ref=...)``, ``Form``); unsafe methods
        are CSRF-protected (``X-CSRF-Token`` header or ``csrf_token`` field).

        Args:
            path: Route path (FastAPI syntax).
            methods: HTTP methods (default ``POST``).
            name: Route name (default: the function name).
            dependencies: Extra FastAPI dependencies.
            **route_kwargs: Passed to ``add_api_route``.

        Example:
            >>> @app.action("/subscribe")  # doctest: +SKIP
            ... async def subscribe(email: str = Form()) -> Alert:
            ...     return Alert(f"Subscribed {email}", tone="success")
        """
        return self._route(path, "fragment", methods, name, dependencies, route_kwargs)

    def include(self, feature: Any) -> None:
        """Mount a feature that registers its own routes, such as a ``TaskFlow``.

        The same as ``feature.mount(app)``.

        Example:
            >>> app.include(flow)  # doctest: +SKIP
        """
        mount = getattr(feature, "mount", None)
        if not callable(mount):
            raise TypeError(
                "Hedron.include(feature) expects something with a mount(app) method, such as "
                f"a hedron.jobs.TaskFlow; got {type(feature).__name__}"
            )
        mount(self)

    def _route(
        self,
        path: str,
        mode: Mode,
        methods: Sequence[str],
        name: str | None,
        dependencies: Sequence[Any] | None,
        route_kwargs: dict[str, Any],
    ) -> Callable[[F], F]:
        if isinstance(methods, str):
            raise TypeError("methods must be a sequence of str such as ['GET'], not a str")
        verbs = [m.upper() for m in methods]
        deps = list(dependencies or [])
        if any(v not in SAFE_METHODS for v in verbs):
            deps.insert(0, Depends(csrf_protect))

        def decorator(func: F) -> F:
            if not callable(func):
                raise TypeError(f"@app.{mode}({path!r}) must decorate a function")
            endpoint = self._endpoint(func, mode)
            self.add_api_route(
                path,
                endpoint,
                methods=verbs,
                name=name or getattr(func, "__name__", None),
                response_class=HTMLResponse,
                response_model=None,
                dependencies=deps,
                include_in_schema=route_kwargs.pop("include_in_schema", False),
                **route_kwargs,
            )
            return func

        return decorator

    def _endpoint(self, func: Callable[..., Any], mode: Mode) -> Callable[..., Any]:
        signature, params, request_of = with_request(func)
        is_async = inspect.iscoroutinefunction(func)
        label = getattr(func, "__qualname__", repr(func))

        async def endpoint(**kwargs: Any) -> Response:
            request = request_of(kwargs)
            if is_async:
                result = await func(**kwargs)
            else:
                result = await run_blocking(functools.partial(func, **kwargs))
            return self._respond(result, request, mode, label)

        endpoint.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=params, return_annotation=Response
        )
        endpoint.__name__ = getattr(func, "__name__", "endpoint")
        endpoint.__doc__ = func.__doc__
        return endpoint

    def _respond(self, result: object, request: Request, mode: Mode, label: str) -> Response:
        if isinstance(result, Response):
            return page_vary(result) if mode == "page" else result
        if not isinstance(result, Component):
            raise TypeError(
                f"{label} must return a hedron Component or a Response, got {type(result).__name__}"
            )
        return component_response(
            result, request, mode, title=self.title, static_prefix=self.static_prefix
        )
