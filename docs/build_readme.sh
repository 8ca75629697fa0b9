#!/usr/bin/env bash
# README.md is assembled from the manual's sections in docs/readme/, in this order.
set -euo pipefail
cd "$(dirname "$0")/readme"
order=(00_intro.md sample_runs.md formats.md swebench_walkthrough.md harbor_docker.md worlds.md docker.md cache.md evidence.md domain.md offline_author.md llm_author.md console.md inputs.md store_integrity.md resume.md 90_development.md)
{
  for f in "${order[@]}"; do
    [ -f "$f" ] || continue
    cat "$f"
    printf '\n'
  done
} > ../../README.md
