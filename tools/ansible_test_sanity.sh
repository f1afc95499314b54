#!/usr/bin/env bash
# Run `ansible-test sanity` on this checkout.
#
# ansible-test only works on a collection that sits at .../ansible_collections/<ns>/<name>
# with its dependencies beside it, so this copies the tracked (and new, unignored) files
# into a scratch directory outside the repository (inside it, ansible-test would ask
# git, which ignores the copy) and links the collections from COLLECTIONS next to it.
# Tests that need Docker or a PowerShell runtime cannot run here and are skipped by
# name (pslint needs pwsh; the PowerShell syntax gate tools/pwsh_syntax.py covers .ps1).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
collections=$(cd "$root/${1:-.cache/collections}" && pwd)
work="${KUBEWIN_SANITY_DIR:-${TMPDIR:-/tmp}/kubewin-node-sanity}"
dest="$work/ansible_collections/kubewin/node"

rm -rf "$work"
mkdir -p "$dest"
(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp -P --parents -t "$dest")
for namespace_dir in "$collections"/ansible_collections/*; do
    namespace=$(basename "$namespace_dir")
    [ "$namespace" = kubewin ] && continue
    ln -s "$namespace_dir" "$work/ansible_collections/$namespace"
done

# ansible-test downloads a get-pip script to bootstrap its virtual environments;
# give it the offline stand-in for the pip version it asks for.
pip_version=$(python -c 'from ansible_test._internal.python_requirements import get_venv_packages as g; import types; print(g(types.SimpleNamespace(version="3.11"))["pip"])')
mkdir -p "$HOME/.ansible/test/cache"
cp "$root/tools/get_pip_offline.py" "$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"

cd "$dest"
exec ansible-test sanity --color no --python "$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
    --skip-test pslint "${@:2}"
