# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Join-Path and Split-Path on path strings (FileSystem provider, C: exists), as their 5.1 syntax allows."""

from _case import Case

JP = 'Join-Path (reference/5.1/Microsoft.PowerShell.Management/Join-Path.md)'
SP = 'Split-Path (reference/5.1/Microsoft.PowerShell.Management/Split-Path.md)'

CASES = [
    Case('join-path-basic', "Join-Path 'C:\\k' 'bin'; Join-Path -Path 'C:\\k' -ChildPath 'kubelet.exe'",
         ['C:\\k\\bin', 'C:\\k\\kubelet.exe'], source=JP + ' example 1: the FileSystem provider joins with \\'),
    Case('join-path-separators-collapsed', "Join-Path -Path 'C:\\k\\' -ChildPath '\\bin'", ['C:\\k\\bin'],
         source=JP + ' example 2: existing separators are handled so there is only one'),
    Case('join-path-no-additional-child-51', "Join-Path 'C:\\k' 'a' 'b'; 'after'", ['after'],
         errors=["A positional parameter cannot be found that accepts argument 'b'."],
         source=JP + ' SYNTAX (5.1): only -Path and -ChildPath are positional; -AdditionalChildPath is PowerShell 6+'),
    Case('split-path-parent-default', "Split-Path 'C:\\k\\bin\\kubelet.exe'; Split-Path -Path 'C:\\k\\bin\\kubelet.exe' -Parent",
         ['C:\\k\\bin', 'C:\\k\\bin'], source=SP + ': ParentSet is the default parameter set'),
    Case('split-path-leaf-qualifier', "Split-Path 'C:\\k\\bin\\kubelet.exe' -Leaf; Split-Path 'C:\\k\\bin' -Qualifier",
         ['kubelet.exe', 'C:'], source=SP + ' examples 1-2: -Leaf returns the last item, -Qualifier the drive'),
    Case('split-path-no-leafbase-51', "Split-Path 'C:\\k\\kubelet.exe' -LeafBase; 'after'", ['after'],
         errors=["A parameter cannot be found that matches parameter name 'LeafBase'."],
         source=SP + ' SYNTAX (5.1): no -LeafBase/-Extension (added in PowerShell 6)'),
]
