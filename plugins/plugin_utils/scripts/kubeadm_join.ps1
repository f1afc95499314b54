# kubewin-script: kubeadm_join
# Joins the node with kubeadm. The JoinConfiguration (it holds the bootstrap token)
# arrives as a SecureString and lives only in a file only SYSTEM and Administrators
# can read, for as long as kubeadm runs; the token never appears on a command line.
[CmdletBinding(SupportsShouldProcess)]
param(
    [Parameter(Mandatory)][string]$KubeadmPath,
    [Parameter(Mandatory)][securestring]$JoinConfiguration,
    [Parameter(Mandatory)][string]$KubeletKubeconfig,
    [Parameter(Mandatory)][string]$KubeadmFlagsFile,
    [int]$TimeoutSeconds = 600,
    # The folders kubeadm writes under, listed again after the join.
    [string[]]$Folders = @()
)
$ErrorActionPreference = 'Stop'

# kubewin-include: state

$text = (New-Object -TypeName System.Management.Automation.PSCredential -ArgumentList @(
        'unused', $JoinConfiguration)).GetNetworkCredential().Password
$directory = Join-Path -Path $KubeWinHome -ChildPath 'join'
New-KubeWinDirectory -Path $directory -Profile secret
$configPath = Join-Path -Path $directory -ChildPath 'join-configuration.yaml'
try {
    Write-KubeWinTextFile -Path $configPath -Text $text
    $process = Start-Process -FilePath $KubeadmPath -ArgumentList @('join', '--config', "`"$configPath`"") `
        -NoNewWindow -PassThru -RedirectStandardOutput "$configPath.out" -RedirectStandardError "$configPath.err"
    # Windows PowerShell keeps no process handle here (-NoNewWindow, redirections): without reading
    # .Handle while kubeadm runs, ExitCode stays $null after it exits (PowerShell issue 5421).
    $null = $process.Handle
    if (-not $process.WaitForExit($TimeoutSeconds * 1000)) {
        $process.Kill()
        throw "kubeadm join did not finish within $TimeoutSeconds s"
    }
    if ($process.ExitCode -ne 0) {
        # kubeadm (a Go program) writes UTF-8 into the redirected file; Get-Content reads ANSI unless told.
        $errors = (Get-Content -LiteralPath "$configPath.err" -Raw -Encoding UTF8) -split "`r?`n" | Where-Object { $_ } | Select-Object -Last 15
        # Whatever kubeadm printed, the token does not leave the node.
        $message = $errors -join ' | '
        foreach ($match in [regex]::Matches($text, 'token:\s*"?([a-z0-9]{6}\.[a-z0-9]{16})')) {
            $message = $message.Replace($match.Groups[1].Value, '<token>')
        }
        throw "kubeadm join failed with exit code $($process.ExitCode): $message"
    }
}
finally {
    foreach ($leftover in @($configPath, "$configPath.out", "$configPath.err")) {
        if (Test-Path -LiteralPath $leftover) { Remove-Item -LiteralPath $leftover -Force }
    }
}
$Ansible.Result = ConvertTo-Json -Depth 6 -Compress -InputObject ([ordered]@{
        # And the kubelet's service, which the join (re)started, and the listings of the folders it wrote under: the
        # snapshot knows them without another read.
        state = Get-KubeWinNodeState -Sections @('files', 'contents', 'services', 'folders') `
            -Files @($KubeletKubeconfig) -Contents @($KubeadmFlagsFile) -Services @('kubelet') -Folders $Folders
    })
