"""Simulation of file_write.ps1."""

from kubewin_sim.registry import script


@script('file_write')
def file_write(node, p, context):
    path = p['Path']
    if p['Remove']:
        node.remove_file(path)
        node.register(forget=[path])
    else:
        text = p['SecretContent'] if p['SecretContent'] is not None else (p['Content'] or '')
        node.write_file(path, content=text, acl=p['Acl'])
        node.register([path])
    return {'state': {'sections': ['files'], 'files': {path: node.file_view(path)}}}
