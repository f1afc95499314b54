# Runs the Windows scenarios: the collection's node scripts, composed exactly as plugins/plugin_utils/_pwsh.py
# composes them, run whole on this node, their answers checked with plain PowerShell. The same files run under
# Windows PowerShell 5.1 (a Windows Server VM, a hosted Windows runner) and under the test engine
# (tests/unit/simulation/test_windows_scenarios.py). See docs/docsite/rst/testing.rst.
#
#   powershell.exe -NoProfile -ExecutionPolicy Bypass -File <checkout>\tests\windows\scenarios\run.ps1 -Root <checkout>
#       [-KubeadmPath <stub kubeadm.exe>] [-ServiceProgram <stub service program>]
#
# new_stubs.ps1 builds the two stub programs on Windows. A scenario that needs one that was not given is skipped,
# and says so. Every scenario reverts what it changes; none touches an existing route, rule, service or file.
# Prints one PASS, FAIL or SKIP line per scenario and exits 1 when one failed.
param(
    # The collection's checkout: it holds plugins\plugin_utils\scripts and tests\windows\scenarios.
    [Parameter(Mandatory)][string]$Root,
    [string]$KubeadmPath = '',
    [string]$ServiceProgram = ''
)
$ErrorActionPreference = 'Stop'
$ScriptsRoot = Join-Path -Path $Root -ChildPath 'plugins\plugin_utils\scripts'
$ScenarioRoot = Join-Path -Path $Root -ChildPath 'tests\windows\scenarios'
# The collection's own folder (lib/files.ps1 $KubeWinHome): removed at the end if the scenarios created it.
$KubeWinHomeBefore = Test-Path -LiteralPath (Join-Path -Path $env:ProgramData -ChildPath 'kubewin')

function Expand-KubeWinInclude {
    # _pwsh._expand_includes: each line '# kubewin-include: <lib>' becomes the text of scripts\lib\<lib>.ps1 (its own
    # includes expanded, its trailing line ends removed), once per script; a repeat becomes '# (<lib> included above)'.
    param([string]$Text, [hashtable]$Seen)
    $lines = New-Object -TypeName System.Collections.ArrayList
    foreach ($line in ($Text -split "`n")) {
        if ($line.TrimEnd("`r") -cmatch '^# kubewin-include: ([a-z0-9_]+)[ \t]*$') {
            $library = $Matches[1]
            if ($Seen.ContainsKey($library)) {
                $null = $lines.Add("# ($library included above)")
            }
            else {
                $Seen[$library] = $true
                $libraryText = [System.IO.File]::ReadAllText((Join-Path -Path $ScriptsRoot -ChildPath "lib\$library.ps1"))
                $null = $lines.Add((Expand-KubeWinInclude -Text $libraryText.TrimEnd("`n") -Seen $Seen))
            }
        }
        else {
            $null = $lines.Add($line)
        }
    }
    return ($lines -join "`n")
}

function Get-KubeWinComposedScript {
    # _pwsh.load_script: the text the runner sends to ansible.windows.win_powershell.
    param([string]$ScriptName)
    $text = [System.IO.File]::ReadAllText((Join-Path -Path $ScriptsRoot -ChildPath "$ScriptName.ps1"))
    if (-not $text.StartsWith("# kubewin-script: $ScriptName")) { throw "$ScriptName.ps1 does not begin with its marker line" }
    return (Expand-KubeWinInclude -Text $text -Seen @{})
}

function Invoke-KubeWinScript {
    # As win_powershell runs what _pwsh.run_script sends: the composed text as a script block, the parameters bound
    # by name, $Ansible an object whose Result the script sets. Returns the script's JSON answer, decoded. A script
    # that fails throws here.
    param([string]$ScriptName, [hashtable]$ScriptParameters = @{})
    $block = [scriptblock]::Create((Get-KubeWinComposedScript -ScriptName $ScriptName))
    $Ansible = [pscustomobject]@{ CheckMode = $false; Verbosity = 0; Result = @{}; Diff = @{}; Changed = $true; Failed = $false }
    $null = & $block @ScriptParameters
    return (ConvertFrom-Json -InputObject $Ansible.Result)
}

function Assert-KubeWin {
    # Compares as text, so a list is compared item by item (joined with spaces) and $null is ''.
    param($Actual, $Expected, [string]$What)
    if ("$Actual" -cne "$Expected") { throw "$What is '$Actual', expected '$Expected'" }
}

function Skip-KubeWinScenario {
    param([string]$Reason)
    throw "SKIP: $Reason"
}

$failed = 0
foreach ($scenario in @('node_info', 'default_route', 'untidy_path', 'file_write', 'firewall_rule', 'node_route', 'node_service',
        'service_stop_pending', 'execution_policy', 'kubeadm_join', 'node_reset_link', 'log_rotate_culture', 'port_ranges')) {
    try {
        $text = [System.IO.File]::ReadAllText((Join-Path -Path $ScenarioRoot -ChildPath "scenario_$scenario.ps1"))
        $null = & ([scriptblock]::Create($text))
        "PASS $scenario"
    }
    catch {
        $message = $_.Exception.Message
        if ($message.StartsWith('SKIP: ')) {
            "SKIP $scenario ($($message.Substring(6)))"
        }
        else {
            $failed++
            "FAIL $scenario $message"
        }
    }
}
if (-not $KubeWinHomeBefore) {
    $collectionHome = Join-Path -Path $env:ProgramData -ChildPath 'kubewin'
    if (Test-Path -LiteralPath $collectionHome) { Remove-Item -LiteralPath $collectionHome -Recurse -Force }
}
if ($failed -gt 0) {
    "$failed scenario(s) failed"
    exit 1
}
