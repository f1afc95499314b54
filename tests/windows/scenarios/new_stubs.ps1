# Builds the two stub programs the scenarios run on real Windows, with the C# compiler of the .NET Framework that
# Windows PowerShell 5.1's Add-Type calls (Add-Type reference, 5.1: -OutputAssembly, -OutputType). Not used by the
# test engine, which models kubeadm.exe and service programs itself.
#
#   powershell.exe -NoProfile -ExecutionPolicy Bypass -File new_stubs.ps1 -Directory C:\kubewin-scenario-stubs
#
# kubeadm.exe: `kubeadm join --config FILE` writes the file back to standard error and exits 1, as a kubeadm that
#   refuses the configuration would; it contacts nothing.
# kubewin-scenario-service.exe: a service program that does nothing but answer the service control manager
#   (System.ServiceProcess.ServiceBase: start, stop). Started with --hang-on-stop its OnStop never returns, so the
#   service stays StopPending (ServiceBase reports StopPending, then Stopped once OnStop returns).
param([Parameter(Mandatory)][string]$Directory)
$ErrorActionPreference = 'Stop'
$null = New-Item -Path $Directory -ItemType Directory -Force

$kubeadm = @'
using System;
using System.IO;
public static class KubeadmStub {
    public static int Main(string[] args) {
        if (args.Length == 3 && args[0] == "join" && args[1] == "--config" && File.Exists(args[2])) {
            Console.Error.WriteLine("kubeadm stub: joins nothing; the configuration it was given:");
            Console.Error.Write(File.ReadAllText(args[2]));
            return 1;
        }
        Console.Error.WriteLine("kubeadm stub: unexpected arguments: " + String.Join(" ", args));
        return 2;
    }
}
'@
Add-Type -TypeDefinition $kubeadm -OutputAssembly (Join-Path -Path $Directory -ChildPath 'kubeadm.exe') -OutputType ConsoleApplication

$service = @'
using System;
using System.ServiceProcess;
using System.Threading;
public class KubeWinScenarioService : ServiceBase {
    private readonly bool hangOnStop;
    public KubeWinScenarioService(bool hangOnStop) { ServiceName = "kubewin-scenario-svc"; this.hangOnStop = hangOnStop; }
    public static void Main(string[] args) {
        ServiceBase.Run(new KubeWinScenarioService(Array.IndexOf(args, "--hang-on-stop") >= 0));
    }
    protected override void OnStop() { if (hangOnStop) { Thread.Sleep(Timeout.Infinite); } }
}
'@
Add-Type -TypeDefinition $service -ReferencedAssemblies System.ServiceProcess -OutputType WindowsApplication `
    -OutputAssembly (Join-Path -Path $Directory -ChildPath 'kubewin-scenario-service.exe')
