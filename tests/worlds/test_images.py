"""Reading a Dockerfile's FROM images and the base-image map (no engine needed)."""

from __future__ import annotations

import pytest

from testjack_tui.worlds.images import (ImageProblem, base_image_map, build_spec, dockerfile_of,
                                        env_tag, from_images, rewrite_from, task_of)

MULTI_STAGE = """\
ARG PY=3.11
FROM --platform=linux/amd64 python:${PY}-slim AS build
RUN echo hi
FROM build AS test
FROM scratch
COPY --from=build /x /x
"""


def test_from_images_skips_stages_and_scratch_and_expands_args():
    assert from_images(MULTI_STAGE) == ["python:3.11-slim"]
    assert from_images("from \\\n  debian:12\nRUN true\n") == ["debian:12"]


def test_rewrite_from_changes_only_mapped_from_lines():
    text = "FROM python:3.11-slim AS base\nRUN echo python:3.11-slim\nFROM base\n"
    out = rewrite_from(text, {"python:3.11-slim": "testjack/base:bookworm"})
    assert out == "FROM testjack/base:bookworm AS base\nRUN echo python:3.11-slim\nFROM base\n"
    assert env_tag("d", out) != env_tag("d", text)  # the mapped Dockerfile is another image


def test_base_image_map_reads_pairs_and_names_a_bad_one():
    assert base_image_map("a:1=b:2, c=d") == {"a:1": "b:2", "c": "d"}
    assert base_image_map("") == {}
    with pytest.raises(ImageProblem, match="'python:3.11' is not OLD=NEW"):
        base_image_map("python:3.11")


def test_build_spec_round_trip():
    spec = build_spec("Dockerfile", "wordcount")
    assert (dockerfile_of(spec), task_of(spec)) == ("Dockerfile", "wordcount")
    assert dockerfile_of("python:3.11") is None and task_of("python:3.11") == ""
