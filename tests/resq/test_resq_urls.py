"""URL joining: base paths, queries, dot segments and colons (examples + hypothesis properties)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resq import Requests
from resq._urls import join_url

segment = st.text(
    alphabet=st.sampled_from("abcxyz019-_~:@!$&'()*+,;="), min_size=1, max_size=8
).filter(lambda s: s not in (".", ".."))
segments = st.lists(segment, max_size=4)
query_pair = st.tuples(
    st.text(alphabet="abcdef", min_size=1, max_size=4), st.text(alphabet="xyz019", max_size=4)
)
queries = st.lists(query_pair, max_size=3)


def _q(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{k}={v}" for k, v in pairs)


@pytest.mark.parametrize(
    ("base", "path", "expected"),
    [
        ("https://api.example.com", "/job/42", "https://api.example.com/job/42"),
        ("https://api.example.com/v1", "/job/42", "https://api.example.com/v1/job/42"),
        ("https://api.example.com/v1/", "job/42", "https://api.example.com/v1/job/42"),
        ("http://h/v1", "job:42", "http://h/v1/job:42"),
        ("http://h", "urn:x:y", "http://h/urn:x:y"),
        ("http://h/v1", "a/../b", "http://h/v1/b"),
        ("http://h/v1", "../b", "http://h/b"),
        ("http://h/v1", "../../../b", "http://h/b"),
        ("http://h/v1", "a/./b/", "http://h/v1/a/b/"),
        ("http://h/v1?k=1", "job?x=2", "http://h/v1/job?k=1&x=2"),
        ("http://h/v1?k=1", "job", "http://h/v1/job?k=1"),
        ("http://h/v1", "", "http://h/v1"),
        ("http://h/v1", "?x=1", "http://h/v1?x=1"),
        ("http://h/v1", "https://other/x", "https://other/x"),
        ("http://h:8000", "/a#frag", "http://h:8000/a#frag"),
    ],
)
def test_examples(base, path, expected):
    assert join_url(base, path) == expected


@given(base=segments, rel=segments)
def test_path_is_appended_to_the_base_path(base, rel):
    joined = join_url("http://h/" + "/".join(base), "/".join(rel))
    assert urlsplit(joined).path == "/" + "/".join(base + rel)


@given(base=segments, rel=segments)
def test_scheme_and_host_never_change_and_colons_stay_in_the_path(base, rel):
    joined = join_url("https://example.org:8443/" + "/".join(base), "/".join(rel))
    parts = urlsplit(joined)
    assert (parts.scheme, parts.netloc) == ("https", "example.org:8443")
    assert parts.path.count(":") == sum(s.count(":") for s in base + rel)


@given(base=segments, rel=segments, ups=st.integers(min_value=1, max_value=6))
def test_dot_dot_removes_one_segment_each_and_stops_at_the_root(base, rel, ups):
    joined = join_url("http://h/" + "/".join(base), "/".join(rel + [".."] * ups))
    kept = (base + rel)[: max(0, len(base + rel) - ups)]
    assert urlsplit(joined).path == "/" + "/".join(kept) + ("/" if kept else "")


@given(base_q=queries, rel_q=queries, rel=segments)
def test_queries_are_kept_base_first(base_q, rel_q, rel):
    base = "http://h/api" + (f"?{_q(base_q)}" if base_q else "")
    path = "/".join(rel) + (f"?{_q(rel_q)}" if rel_q else "")
    joined = join_url(base, path)
    assert parse_qsl(urlsplit(joined).query, keep_blank_values=True) == base_q + rel_q


def test_requests_really_sends_the_joined_url(base_url):
    with Requests(base_url + "/echo/v1?k=1", adapter="requests") as c:
        body = c.get("a:b/../c:d?x=2").json()
    assert body == {"path": "/echo/v1/c:d", "query": "k=1&x=2"}
