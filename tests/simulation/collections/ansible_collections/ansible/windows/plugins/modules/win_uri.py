# -*- coding: utf-8 -*-
"""Test-only ansible.windows.win_uri: an HTTP request from a simulated Windows node.

Takes the real module's options and returns its result keys. The simulation answers
requests to a Service's ClusterIP from the simulated cluster (kubewin_sim/cluster.py):
200 with a small page when the Service has ready endpoints on Windows nodes and the
requesting node's kube-proxy service runs (it programs the ClusterIP on the node);
otherwise the request fails to connect, as it would on Windows. Any other address is
unreachable: nothing in the simulation leaves the machine.
"""

from urllib.parse import urlsplit

from ansible.module_utils.basic import AnsibleModule

from kubewin_sim import fake
from kubewin_sim.cluster import KUBE_PROXY_SERVICE, open_cluster
from kubewin_sim.node import open_node

ARGUMENT_SPEC = {
    'url': {'type': 'str', 'required': True},
    'content_type': {'type': 'str'},
    'body': {'type': 'raw'},
    'dest': {'type': 'path'},
    'creates': {'type': 'path'},
    'removes': {'type': 'path'},
    'return_content': {'type': 'bool', 'default': False},
    'status_code': {'type': 'list', 'elements': 'int', 'default': [200]},
    'url_timeout': {'type': 'int', 'default': 30, 'aliases': ['timeout']},
    'url_method': {'type': 'str', 'default': 'GET', 'aliases': ['method']},
    'follow_redirects': {'type': 'str', 'choices': ['all', 'none', 'safe'], 'default': 'safe'},
    'headers': {'type': 'dict'},
    'http_agent': {'type': 'str', 'default': 'ansible-httpget'},
    'maximum_redirection': {'type': 'int', 'default': 50},
    'validate_certs': {'type': 'bool', 'default': True},
    'client_cert': {'type': 'str'},
    'client_cert_password': {'type': 'str', 'no_log': True},
    'force_basic_auth': {'type': 'bool', 'default': False},
    'url_username': {'type': 'str'},
    'url_password': {'type': 'str', 'no_log': True},
    'use_default_credential': {'type': 'bool', 'default': False},
    'use_proxy': {'type': 'bool', 'default': True},
    'proxy_url': {'type': 'str'},
    'proxy_username': {'type': 'str'},
    'proxy_password': {'type': 'str', 'no_log': True},
    'proxy_use_default_credential': {'type': 'bool', 'default': False},
}

UNREACHABLE = 'Unable to connect to the remote server'


def answer(host, node, url):
    """(status code, body) for a GET from ``node``, or raise ConnectionError."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == 'https' else 80)
    proxy = node.data['services'].get(KUBE_PROXY_SERVICE) or {}
    with open_cluster(fake.current_host()[1]) as cluster:
        service, backends = cluster.service_backends(parts.hostname, port)
    if service is None or not backends or proxy.get('state') != 'running':
        raise ConnectionError(UNREACHABLE)
    backend = backends[0]
    body = '<html><body><h1>%s</h1><p>served by %s on %s, asked by %s</p></body></html>' % (
        service['metadata']['name'], backend['targetRef']['name'], backend['nodeName'], host)
    return 200, body


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    url = module.params['url']
    result = {'changed': False, 'url': url, 'elapsed': 0}
    if module.params['url_method'].upper() != 'GET' or module.params['dest'] or module.params['body'] is not None:
        module.fail_json(msg='the simulated win_uri answers only GET requests without body or dest', **result)
    host, state_dir = fake.current_host()
    with open_node(state_dir, host) as node:
        node.count_call('win_uri')
        started = node.elapsed()
        try:
            status, body = answer(host, node, url)
        except ConnectionError as error:
            module.fail_json(msg='Unhandled exception occurred when sending web request. Exception: %s' % error,
                             **result)
        # The request's time on the node's simulated clock (node.py): nothing in the answer takes time there.
        elapsed = round(node.elapsed() - started, 3)
    result.update(status_code=status, status_description='OK', content_length=len(body.encode('utf-8')),
                  content_type='text/html', response_uri=url, elapsed=elapsed)
    if module.params['return_content']:
        result['content'] = body
    if status not in module.params['status_code']:
        module.fail_json(msg='Status code of request \'%d\' is not in list of valid status codes %s : \'OK\'.'
                             % (status, module.params['status_code']), **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
