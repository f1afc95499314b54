#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: artifact_stage
short_description: Download and verify every artifact a Windows node needs before anything on it changes
version_added: 0.1.0
description:
  - In one remote call, the node downloads each artifact of O(artifacts) into
    C(<staging_dir>\<hash>\<file name>) and verifies its hash; the staging folder lets only SYSTEM and
    Administrators in. An artifact already staged with its hash is not downloaded again, and the hash a
    hash file upstream publishes gave is remembered in C(<staging_dir>\index.json), so a re-run downloads nothing
    twice. Folders of artifacts no longer wanted are removed.
  - Every artifact is tried; then the task fails naming each one that could not be staged, a wrong hash with
    its URL and both hashes. Nothing but the staging folder changed.
  - "An artifact the node's records (M(kubewin.node.node_info) snapshot, section C(artifacts)) show installed
    from the same URL, checksum and version is left out: M(kubewin.node.artifact) installs nothing then."
  - M(kubewin.node.artifact) with O(kubewin.node.artifact#module:staged) moves the staged file into place.
  - In check mode the script runs under C(-WhatIf) and reports what it would download, from the hashes,
    without downloading.
  - With O(source=controller) each artifact is downloaded and verified into the controller's cache instead
    (no remote call), so a wrong checksum fails here too.
options:
  artifacts:
    description:
      - The artifacts, each C({url, checksum, component, version}) as M(kubewin.node.artifact) takes them
        (the output of the P(kubewin.node.artifact_sources#filter) filter, or the node's share of the
        preflight, C(plan_artifacts)). C(checksum) is C(sha256:<hex>), C(sha512:<hex>) or C(sha256:<URL of the
        hash file>).
    type: list
    elements: dict
    required: true
  staging_dir:
    description: The staging folder on the node.
    type: str
    required: true
  source:
    description: C(node) downloads on the node; C(controller) into the controller's O(cache_dir).
    type: str
    choices: [node, controller]
    default: node
  cache_dir:
    description: Controller cache for O(source=controller).
    type: path
    default: ~/.cache/kubewin/artifacts
  proxy:
    description: Proxy for the downloads, C({url, username, password}); else the node's machine environment.
    type: dict
    suboptions:
      url:
        description: The proxy URL.
        type: str
        required: true
      username:
        description: User name for the proxy.
        type: str
      password:
        description: Its password.
        type: str
  proxy_environment:
    description:
      - C({HTTP_PROXY, HTTPS_PROXY, NO_PROXY}) read in place of the machine's environment, as the
        C(prerequisites) role is to set it (staging runs before it does).
    type: dict
    default: {}
  retries:
    description: Further attempts after a transient failure.
    type: int
    default: 4
  timeout:
    description: Seconds one download attempt may take.
    type: int
    default: 300
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Stage every artifact this node needs
  kubewin.node.artifact_stage:
    artifacts: "{{ plan_artifacts }}"
    staging_dir: C:\k\staging
  register: artifacts_staging
'''

RETURN = r'''
staged:
  description: Per URL, the staged file on the node and the hash it was verified with, for M(kubewin.node.artifact).
  returned: success
  type: dict
  sample: {"https://dl.k8s.io/release/v1.32.13/bin/windows/amd64/kubelet.exe": {"path": "C:\\k\\staging\\ab12...\\kubelet.exe", "sha": "ab12..."}}
artifacts:
  description: Each artifact staged, with its C(state) (C(present), C(downloaded) or C(pending) in check mode).
  returned: success
  type: list
  elements: dict
skipped_installed:
  description: How many artifacts were left out because the node has them installed.
  returned: success
  type: int
'''
