# The two commands of the README: `make demo` and `make test`. Both install what is missing.
CARGO ?= cargo

.PHONY: test demo deps bench bench-automaton bench-learner bench-learn bench-review bench-explain bench-concise

deps:
	bash scripts/install-cbmc.sh
	bash scripts/install-chromium.sh
	bash scripts/install-sarif-check.sh
	bash scripts/install-buildgrid.sh

test: deps
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	python3 scripts/check-layers.py
	$(CARGO) test

demo: deps
	$(CARGO) build --release
	target/release/mergelens demo --out target/demo

# Benchmarks print figures; they are not tests (see benches/README.md).
# The corpus of benches/programs/ in three modes side by side (baseline, the paper's lazy
# learning, default); writes target/bench/summary.json (see benches/corpus.md).
bench: deps
	$(CARGO) build --release
	python3 scripts/bench.py $${CARGO_TARGET_DIR:-target}/release/mergelens --out target/bench

bench-automaton:
	$(CARGO) bench --bench automaton

bench-learner:
	bash scripts/bench-learner.sh

bench-learn: deps
	bash scripts/bench-learn-cbmc.sh

bench-concise: deps
	bash scripts/bench-concise.sh

bench-review: deps
	bash scripts/bench-review.sh

bench-explain: deps
	$(CARGO) build --release
	bash scripts/bench-explain.sh target/release/mergelens

# The paper's programs at their largest published bounds (benches/paper.md). PAPER_DEMOS is
# the paper_demos/ directory of a checkout of martinchapman/learning-errors; nothing is fetched.
.PHONY: bench-paper
bench-paper: deps
	$(CARGO) build --release
	bash scripts/bench-paper.sh "$(PAPER_DEMOS)" target/release/mergelens $(OTHER_MERGELENS)

# Real history (benches/real.md): the merges of the C libraries cloned under REPOS (one clone
# per benches/real/NAME.toml, named NAME), reviewed at the default bounds with a 240 s budget
# each; nothing is fetched. PER_REPO merges per library at most, newest first.
.PHONY: bench-real
PER_REPO ?= 8
bench-real: deps
	@test -n "$(REPOS)" || { echo "make bench-real: set REPOS=DIR, a directory of clones named as benches/real/*.toml" >&2; exit 2; }
	$(CARGO) build --release
	python3 scripts/bench_real.py $${CARGO_TARGET_DIR:-target}/release/mergelens --repos "$(REPOS)" --per-repo $(PER_REPO) --out benches/real.md

# Libraries as they are (benches/libraries.md): INIH and TINYEXPR are checkouts of
# benhoyt/inih and codeplea/tinyexpr the user provides; nothing is fetched.
.PHONY: bench-libraries
bench-libraries: deps
	bash scripts/bench-libraries.sh "$(INIH)" "$(TINYEXPR)"

# Remote execution (docs/remote.md): the corpus of benches/programs/ learned on this machine and
# through a REAPI engine here (BuildGrid, scripts/reapi_stack.py) with 1, 2 and 4 workers, then
# again on the filled action cache; writes target/bench/remote.json.
.PHONY: bench-remote
bench-remote: deps
	$(CARGO) build --release
	python3 scripts/bench_remote.py $${CARGO_TARGET_DIR:-target}/release/mergelens $(if $(PROGRAMS),$(foreach p,$(PROGRAMS),--program $(p)))
