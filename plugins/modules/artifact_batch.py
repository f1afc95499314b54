#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: artifact_batch
short_description: Install several downloaded files on a Windows node, each verified by its checksum, in one remote call
version_added: 0.1.0
description:
  - Each entry of O(artifacts) is installed as M(kubewin.node.artifact) installs one (the same checks, the same record
    on the node, the same plan from the node state), and all that need a change are installed by one remote call.
    The artifacts role installs a role's components with it.
  - Every artifact is tried. When any fails (a download, a hash mismatch, an archive without a member asked for), the
    task fails naming each one that failed and why; the others are installed and recorded, and a re-run installs only
    what is missing.
  - A node whose snapshot from M(kubewin.node.node_info) shows every artifact installed makes no remote call.
  - With O(source=controller) each artifact is downloaded once on the controller and copied to the node first, a
    round trip per file, before the one call that installs them all.
options:
  artifacts:
    description: The artifacts, each with the options of M(kubewin.node.artifact) that describe one artifact.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description:
          - What RV(results) and error messages call it (the artifacts role passes the catalog's component, such as
            C(kubelet)); by default the file name of O(artifacts[].url). Names must differ.
        type: str
        aliases: [component]
      url:
        description: The http(s) URL of the artifact.
        type: str
        required: true
      dest:
        description: Absolute path of the file on the node; with O(artifacts[].extract), the directory the members go to.
        type: str
        required: true
      checksum:
        description: As M(kubewin.node.artifact)'s O(kubewin.node.artifact#module:checksum).
        type: str
      skip_checksum:
        description: Install the artifact without verifying it. Mutually exclusive with O(artifacts[].checksum).
        type: bool
        default: false
      extract:
        description: As M(kubewin.node.artifact)'s O(kubewin.node.artifact#module:extract).
        type: dict
        suboptions:
          format:
            description: Archive format; by default taken from the URL (C(.zip), C(.tar.gz), C(.tgz)).
            type: str
            choices: [zip, tar.gz]
          members:
            description: Paths inside the archive to install; each lands in O(artifacts[].dest) under its file name.
            type: list
            elements: str
            required: true
          rename:
            description: Member path to the file name it gets instead of its own.
            type: dict
            default: {}
      version:
        description: The release this artifact is, kept in its record on the node (see M(kubewin.node.artifact)).
        type: str
  staged:
    description:
      - The RV(kubewin.node.artifact_stage#module:staged) result of M(kubewin.node.artifact_stage) earlier in the run
        (URL to C(path) and C(sha)). An artifact whose URL it names is moved into place from the node's staging
        folder, verified again, and not downloaded. Ignored with O(source=controller).
    type: dict
    default: {}
extends_documentation_fragment:
  - kubewin.node.node_action
  - kubewin.node.artifact_download
seealso:
  - module: kubewin.node.artifact
  - module: kubewin.node.artifact_stage
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Install the kubelet and kube-proxy, each verified against the hash file published next to it
  kubewin.node.artifact_batch:
    artifacts:
      - name: kubelet
        url: https://dl.k8s.io/release/v1.33.7/bin/windows/amd64/kubelet.exe
        checksum: sha256:https://dl.k8s.io/release/v1.33.7/bin/windows/amd64/kubelet.exe.sha256
        dest: C:\k\kubelet.exe
        version: 1.33.7
      - name: kube-proxy
        url: https://dl.k8s.io/release/v1.33.7/bin/windows/amd64/kube-proxy.exe
        checksum: sha256:https://dl.k8s.io/release/v1.33.7/bin/windows/amd64/kube-proxy.exe.sha256
        dest: C:\k\kube-proxy.exe
        version: 1.33.7
  register: binaries

- name: Restart the kubelet when its binary changed
  ansible.builtin.debug:
    msg: the kubelet was replaced
  when: binaries.results | selectattr('name', 'eq', 'kubelet') | selectattr('changed') | list
'''

RETURN = r'''
results:
  description: One entry per artifact, in the order of O(artifacts).
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: The artifact's O(artifacts[].name).
      type: str
      sample: kubelet
    url:
      description: Its URL.
      type: str
    changed:
      description: Whether it was (or, in check mode, would be) installed.
      type: bool
    dest:
      description: The destination.
      type: str
    version:
      description: The release recorded for it; null when none was given.
      type: str
    checksum:
      description: The checksum specification its files were verified against (C(none) with skip_checksum).
      type: str
    files:
      description: Each installed file with its SHA-256 now.
      type: dict
    attempts:
      description: Download attempts the node needed (0 when the file was staged or pushed from the controller).
      returned: changed and not check mode
      type: int
    download:
      description: What was downloaded for it and how long it took, as M(kubewin.node.artifact)'s RV(kubewin.node.artifact#module:download).
      type: dict
'''
