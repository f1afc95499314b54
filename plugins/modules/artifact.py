#!/usr/bin/python
# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
module: artifact
short_description: Install a downloaded file on a Windows node, verified by its checksum first
version_added: 0.1.0
description:
  - The node downloads O(url) to a temporary file next to O(dest), verifies its hash, and only then
    replaces O(dest) (or, with O(extract), puts the archive members asked for into the O(dest)
    directory). On any failure the previous file stays as it was.
  - Transient failures (connection reset, timeout, HTTP 5xx) are retried with exponential backoff
    (2, 4, 8, ... seconds, at most 30) up to O(retries) more times; HTTP 4xx and a hash mismatch fail at
    once, naming the URL and both hashes.
  - No artifact is installed without a checksum unless O(skip_checksum) opts out for that artifact.
  - Where it came from (URL, checksum) and the hash of every file installed is recorded on the node, so
    a later run whose snapshot from M(kubewin.node.node_info) shows the same checksum and unchanged files
    makes no remote call and downloads nothing. A file that already has the pinned SHA-256 is not
    downloaded either.
  - "One remote call cannot report progress while it runs. Once the download ended, its size, the seconds
    the successful attempt took and the rate are in RV(download) and, at C(-v), on one line such as
    C(<win1> kubelet.exe: 118.3 MiB in 14.2 s (8.3 MiB/s))."
options:
  url:
    description: The http(s) URL of the artifact.
    type: str
    required: true
  dest:
    description: Absolute path of the file on the node; with O(extract), the directory the members go to.
    type: str
    required: true
  checksum:
    description:
      - C(sha256:<hex>) or C(sha512:<hex>) pins the hash.
      - C(sha256:<url>) or C(sha512:<url>) takes it from the upstream hash file, such as the C(.sha256)
        files published next to Kubernetes binaries (a bare hash, or C(sha256sum) lines naming the file).
    type: str
  skip_checksum:
    description: Install the artifact without verifying it. Mutually exclusive with O(checksum).
    type: bool
    default: false
  extract:
    description: Treat the download as an archive and install only some of its members.
    type: dict
    suboptions:
      format:
        description: Archive format; by default taken from the URL (C(.zip), C(.tar.gz), C(.tgz)).
        type: str
        choices: [zip, tar.gz]
      members:
        description: Paths inside the archive to install; each lands in O(dest) under its file name.
        type: list
        elements: str
        required: true
      rename:
        description: Member path to the file name it gets in O(dest) instead of its own.
        type: dict
        default: {}
  version:
    description:
      - The release this artifact is, such as C(1.32.13). The node keeps it in the artifact's record,
        which M(kubewin.node.node_info) reports, so a later run can tell which release is installed
        without reading the file (the node play of C(playbooks/site.yml) decides on an upgrade from it).
      - An installed artifact whose record names another release, or none, is installed again.
    type: str
  staged:
    description:
      - "What M(kubewin.node.artifact_stage) put in the node's staging folder for O(url) earlier in the run
        (its RV(kubewin.node.artifact_stage#module:staged) entry for the URL): the file is moved into place from
        there, verified again against C(sha), and nothing is downloaded. Ignored with O(source=controller)."
    type: dict
    suboptions:
      path:
        description: The staged file on the node.
        type: str
        required: true
      sha:
        description: The hash (of the algorithm of O(checksum)) it was verified with when staged.
        type: str
        required: true
extends_documentation_fragment:
  - kubewin.node.node_action
  - kubewin.node.artifact_download
seealso:
  - module: kubewin.node.node_file
author:
  - kubewin.node contributors (@kubewin)
'''

EXAMPLES = r'''
- name: Install the kubelet, verified against the hash file published next to it
  kubewin.node.artifact:
    url: https://dl.k8s.io/release/v1.31.4/bin/windows/amd64/kubelet.exe
    checksum: sha256:https://dl.k8s.io/release/v1.31.4/bin/windows/amd64/kubelet.exe.sha256
    dest: C:\k\kubelet.exe
    version: 1.31.4

- name: Install containerd's binaries from the release archive
  kubewin.node.artifact:
    url: https://github.com/containerd/containerd/releases/download/v1.7.24/containerd-1.7.24-windows-amd64.tar.gz
    checksum: sha256:https://github.com/containerd/containerd/releases/download/v1.7.24/containerd-1.7.24-windows-amd64.tar.gz.sha256sum
    dest: C:\Program Files\containerd
    extract:
      members: [bin/containerd.exe, bin/containerd-shim-runhcs-v1.exe, bin/ctr.exe]
'''

RETURN = r'''
dest:
  description: The destination.
  returned: success
  type: str
version:
  description: The release recorded for the artifact (O(version)); null when none was given.
  returned: success
  type: str
checksum:
  description: The checksum specification the files were verified against (C(none) with O(skip_checksum)).
  returned: success
  type: str
files:
  description: Each installed file with its SHA-256 now.
  returned: success
  type: dict
attempts:
  description: Download attempts the node needed (0 when the file was pushed from the controller).
  returned: changed and not check mode
  type: int
download:
  description:
    - What was downloaded for this task and how long it took; shown at C(-v) as one line.
    - The size is the artifact's; the seconds are those of the attempt that succeeded (not the failed
      attempts before it, the waits between them, the hash file or the hash check).
  returned: success
  type: dict
  contains:
    file:
      description: The file name of the artifact's URL.
      type: str
      sample: kubelet.exe
    status:
      description:
        - C(downloaded) (by the node, or by the controller with O(source=controller)), C(cached) (the
          controller's cache had it; copied to the node), C(present) (the node has it, verified by its hash;
          nothing downloaded), C(staged) (moved into place from the node's staging folder, see O(staged)) or
          C(pending) (in check mode, it would be downloaded).
      type: str
      sample: downloaded
    bytes:
      description: The size of the artifact.
      returned: status is downloaded or cached
      type: int
      sample: 124046540
    seconds:
      description: Seconds the successful attempt took.
      returned: status is downloaded
      type: float
      sample: 14.235
    bytes_per_second:
      description: The rate of that attempt; null when it was too short to measure.
      returned: status is downloaded
      type: int
      sample: 8714192
    attempts:
      description: The attempt that succeeded (1 when there was no transient failure).
      returned: status is downloaded
      type: int
      sample: 1
    copy_seconds:
      description: With O(source=controller), the seconds the copy from the controller to the node took.
      returned: O(source=controller) and status is downloaded or cached
      type: float
    copy_bytes_per_second:
      description: The rate of that copy; null when it was too short to measure.
      returned: O(source=controller) and status is downloaded or cached
      type: int
'''
