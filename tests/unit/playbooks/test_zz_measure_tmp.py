import os, sys
sys.path.insert(0, '/work/wt/credprov/tests/unit/playbooks')
import test_site_credential_providers as t

def test_measure(tmp_path):
    sim = t.Simulation(tmp_path)
    with sim.edit_cluster(profile={'version': 'v1.33.4'}):
        pass
    off = t.network_play.run(sim, 'playbooks/site.yml', t.fleet(sim, []), **t.OPTIONS)
    assert off.rc == 0
    on = t.network_play.run(sim, 'playbooks/site.yml', t.fleet(sim, [t.ECR, t.ACR]), **t.OPTIONS)
    print([line for line in on.output.splitlines() if 'changed:' in line or 'calls' in line][-6:])
