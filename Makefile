# Entry points for a checkout of kubewin.node. Two of them are all a newcomer needs:
#   make plan   render the IP plan of inventory/example (no Windows host needed)
#   make test   every test suite and quality gate (what CI runs)
# Both create .venv (from the pinned requirements files) and .cache/collections.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
COLLECTIONS := .cache/collections
PLAN_INVENTORY ?= inventory/example
PYTEST_ARGS ?= -n 4 --dist worksteal

export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PATH := $(BIN):$(PATH)
# Bytecode of every Python process started here goes to .cache/pycache, not beside the sources, and is written also
# where the environment sets PYTHONDONTWRITEBYTECODE: without it each simulated ansible-playbook run compiles the
# simulation (tests/simulation/kubewin_sim, 25,000 lines) again, 0.3 s of a run's 2 s of start-up.
export PYTHONPYCACHEPREFIX := $(CURDIR)/.cache/pycache
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help plan test unit unit-long pwsh-syntax lint docs-lint sanity molecule e2e e2e-representative e2e-faults bench-plan bench-fleet clean

help:
	@echo "make plan   render the plan for $(PLAN_INVENTORY) into ./plan"
	@echo "make test   run every test suite and quality gate"
	@echo "make unit | pwsh-syntax | lint | docs-lint | sanity | molecule | e2e   run one gate"
	@echo "make unit-long    the playbook tests make unit leaves out (resets, early end, upgrade, SDN takeover, job slices, patch windows, single-role lifecycles)"
	@echo "make e2e          every shipped inventory's fleet and the representative faults; make test runs e2e-representative"
	@echo "make e2e-faults   every fault scenario on the overlay and l2bridge-flannel fleets (long)"
	@echo "make bench-plan   time validating and rendering a 5,000-node plan, and plan.yml on 40 and 1,000 nodes"
	@echo "make bench-fleet  converge, no-op and one-snapshot floor on simulated fleets of 1, 10 and 50 nodes; converge calls of each e2e fleet"
	@echo "make clean  remove .venv, .cache and generated output"

$(VENV)/.runtime-stamp: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.dev-stamp: $(VENV)/.runtime-stamp requirements-dev.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# Rendering the plan needs only this checkout on the collections path.
$(COLLECTIONS)/.self-stamp: $(VENV)/.runtime-stamp
	$(BIN)/python tools/install_collections.py --self-only $(COLLECTIONS)
	touch $@

# Tests also need the collections kubewin.node runs with (requirements.yml).
$(COLLECTIONS)/.stamp: $(VENV)/.runtime-stamp requirements.yml tools/collections-wheel.txt
	$(BIN)/python tools/install_collections.py $(COLLECTIONS)
	touch $(COLLECTIONS)/.self-stamp $@

plan: $(COLLECTIONS)/.self-stamp
	$(BIN)/ansible-playbook playbooks/plan.yml -i $(PLAN_INVENTORY)

# The gates two at a time where one process would leave a core idle: the syntax gate and the two linters, then (after
# the unit tests, which use both cores) the end-to-end runs beside sanity and molecule. Each target's output is
# printed whole when it ends.
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target pwsh-syntax lint docs-lint
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory -j2 --output-sync=target e2e-representative sanity molecule

pwsh-syntax: $(VENV)/.dev-stamp
	$(BIN)/python tools/pwsh_syntax.py

lint: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	$(BIN)/ansible-lint --offline --profile production

# The docsite (docs/docsite) and the documentation of every plugin and role, as the Ansible
# docsite would render them, and every plugin or role the guides name; works offline.
docs-lint: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	$(BIN)/antsibull-docs lint-collection-docs --plugin-docs --check-extra-docs-refs .

unit: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	$(BIN)/python -m pytest -p no:cacheprovider $(PYTEST_ARGS) -m 'not long' tests/unit

# The whole-lifecycle playbook tests marked `long` (tests/unit/conftest.py), minutes each.
unit-long: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	$(BIN)/python -m pytest -p no:cacheprovider $(PYTEST_ARGS) -m long tests/unit

sanity: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	tools/ansible_test_sanity.sh $(COLLECTIONS)

molecule: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	cd extensions && $(BIN)/molecule test -s default

E2E_INVENTORIES := l2bridge-flannel l2bridge-static l2bridge-dualstack overlay overlay-docker ovn
# The fleets make test runs (e2e-representative): dual-stack l2bridge with static routes, with calico (a reset and rejoin)
# and the representative faults on one overlay node. make e2e adds overlay (two NICs, a disabled NIC, an untidy PATH),
# l2bridge with static routes (gMSA and csi-proxy, a Group Policy execution policy), l2bridge-flannel (proxy, th-TH, a
# stale volume link), overlay with Docker and ovn, which keeps make test under 20 minutes on two cores.
E2E_REPRESENTATIVE := l2bridge-dualstack
E2E_OUT := tests/output/e2e

# site.yml against simulated fleets (tests/e2e/README.md): every shipped inventory, and the
# representative fault scenarios; e2e-faults runs all of them. E2E_JOBS runs side by side (one run
# keeps about one core busy); the longest go first: the faults, then calico (which also resets and rejoins a node).
E2E_JOBS ?= 2
E2E_SUITE = $(BIN)/python tests/e2e/suite.py --out $(E2E_OUT) --jobs $(E2E_JOBS)

E2E_LANES = \
	    "faults-representative-1=tests/e2e/faults tests/e2e/inventories/overlay --scenarios representative --share 1/2 --nodes 1 --report $(E2E_OUT)/faults-1.json" \
	    "faults-representative-2=tests/e2e/faults tests/e2e/inventories/overlay --scenarios representative --share 2/2 --nodes 1 --report $(E2E_OUT)/faults-2.json" \
	    "calico=tests/e2e/run tests/e2e/inventories/calico --reset-rejoin --report $(E2E_OUT)/calico.json" \
	    $(foreach inventory,$(1),"$(inventory)=tests/e2e/run tests/e2e/inventories/$(inventory) --report $(E2E_OUT)/$(inventory).json")

e2e: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	$(E2E_SUITE) $(call E2E_LANES,$(E2E_INVENTORIES))

e2e-representative: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	$(E2E_SUITE) $(call E2E_LANES,$(E2E_REPRESENTATIVE))

e2e-faults: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	$(E2E_SUITE) \
	    "faults-overlay=tests/e2e/faults tests/e2e/inventories/overlay --report $(E2E_OUT)/faults-overlay.json" \
	    "faults-l2bridge-flannel=tests/e2e/faults tests/e2e/inventories/l2bridge-flannel --report $(E2E_OUT)/faults-l2bridge-flannel.json"

bench-fleet: $(VENV)/.dev-stamp $(COLLECTIONS)/.stamp
	mkdir -p $(E2E_OUT)
	$(BIN)/python tests/e2e/bench.py --report $(E2E_OUT)/bench-fleet.json

# Benchmarks (not timed tests): validate a 5,000-node plan and render every node's CNI config (the filter), then
# playbooks/plan.yml itself on fleets of 40 and 1,000 nodes (at most 15 s for 1,000).
bench-plan: $(VENV)/.dev-stamp $(COLLECTIONS)/.self-stamp
	$(BIN)/python tools/bench_plan.py
	$(BIN)/python tools/bench_plan_playbook.py --nodes 40 1000

clean:
	rm -rf $(VENV) .cache plan logs tests/output
