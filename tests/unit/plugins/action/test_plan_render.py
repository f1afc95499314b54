"""kubewin.node.plan_render: the rendered plan written on the controller in one task."""

from types import SimpleNamespace

from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar
from ansible.parsing.dataloader import DataLoader

from ansible_collections.kubewin.node.plugins.action.plan_render import ActionModule

NODES = {'win-2': {'cni_config_text': '{"name": "cbr0"}\n', 'flannel_net_conf_text': '{"Network": "x"}\n'},
         'win-10': {'cni_config_text': '{"name": "cbr0", "n": 10}\n', 'flannel_net_conf_text': None}}


def render(tmp_path, check_mode=False, **args):
    task = Task.load({'kubewin.node.plan_render': dict({'dest': str(tmp_path), 'nodes': NODES, 'summary': 'plan\n'},
                                                       **args)})
    task.check_mode = check_mode
    loader = DataLoader()
    # No host is contacted: a connection whose shell never needs a temporary folder on a target.
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir='unused'))
    action = ActionModule(task, connection, PlayContext(), loader, Templar(loader), None)
    return action.run(task_vars={})


def test_every_file_of_the_plan_in_one_run_then_nothing_again(tmp_path):
    first = render(tmp_path, picture='<svg/>')
    assert first['changed'] and first['written'] == ['ip-plan.svg', 'summary.txt', 'win-10/cni.conf',
                                                     'win-2/cni.conf', 'win-2/net-conf.json']
    assert (tmp_path / 'win-10' / 'cni.conf').read_text() == NODES['win-10']['cni_config_text']
    assert not (tmp_path / 'win-10' / 'net-conf.json').exists()
    again = render(tmp_path, picture='<svg/>')
    assert not again['changed'] and again['written'] == []


def test_check_mode_writes_nothing_and_a_run_without_a_picture_removes_the_old_one(tmp_path):
    render(tmp_path, picture='<svg/>')
    (tmp_path / 'summary.txt').write_text('old\n')
    predicted = render(tmp_path, check_mode=True)
    assert predicted['changed'] and predicted['written'] == ['summary.txt'] and predicted['removed'] == ['ip-plan.svg']
    assert (tmp_path / 'summary.txt').read_text() == 'old\n' and (tmp_path / 'ip-plan.svg').exists()
    done = render(tmp_path)
    assert done['removed'] == ['ip-plan.svg'] and not (tmp_path / 'ip-plan.svg').exists()
    assert (tmp_path / 'summary.txt').read_text() == 'plan\n'
    assert not list(tmp_path.rglob('.plan-*')), 'a temporary file was left behind'
