"""kubernetes-sigs/windows-gmsa on the simulated cluster: what installing its Helm chart leaves.

Absent by default: the kind ``GMSACredentialSpec`` is unknown to the API (kubernetes.core answers ``api_found:
false``) until the cluster profile's ``gmsa`` (or a test's ``install``) installs the chart. What the chart makes, from
windows-gmsa at 993de21 (``charts/gmsa``, appVersion 0.13.0):

- ``crds/crds.yaml``: the CustomResourceDefinition ``gmsacredentialspecs.windows.k8s.io``, group ``windows.k8s.io``,
  kind ``GMSACredentialSpec``, cluster-scoped, versions ``v1alpha1`` (served, deprecated) and ``v1`` (served, stored);
- ``templates/mutatingwebhook.yaml`` and ``validatingwebhook.yaml``: a MutatingWebhookConfiguration and a
  ValidatingWebhookConfiguration named after the release, each with the webhook
  ``admission-webhook.windows-gmsa.sigs.k8s.io`` calling the release's Service (paths ``/mutate`` and ``/validate``)
  for pod creation (and update, for the validating one);
- the release's namespace.

Not modelled: the webhook server (the chart's Deployment and Service) and its admission of pods (the expansion of
``gmsaCredentialSpecName`` and the ``use`` authorization check); no simulated workload names a credential spec.
"""

NAMESPACE = 'gmsa-webhook'
KINDS = {'GMSACredentialSpec': ('windows.k8s.io/v1', False)}
CRD_NAME = 'gmsacredentialspecs.windows.k8s.io'
WEBHOOK = 'admission-webhook.windows-gmsa.sigs.k8s.io'


def _crd():
    schema = {'openAPIV3Schema': {'type': 'object', 'properties': {'credspec': {
        'type': 'object', 'x-kubernetes-preserve-unknown-fields': True}}}}
    return {'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition',
            'metadata': {'name': CRD_NAME},
            'spec': {'group': 'windows.k8s.io', 'scope': 'Cluster',
                     'names': {'kind': 'GMSACredentialSpec', 'plural': 'gmsacredentialspecs'},
                     'versions': [{'name': 'v1alpha1', 'served': True, 'storage': False, 'deprecated': True,
                                   'schema': schema},
                                  {'name': 'v1', 'served': True, 'storage': True, 'schema': schema}]}}


def _webhook(kind, release, path, operations):
    return {'apiVersion': 'admissionregistration.k8s.io/v1', 'kind': kind, 'metadata': {'name': release},
            'webhooks': [{'name': WEBHOOK, 'clientConfig': {'service': {'name': release, 'namespace': NAMESPACE,
                                                                        'path': path}},
                          'rules': [{'operations': operations, 'apiGroups': [''], 'apiVersions': ['*'],
                                     'resources': ['pods']}],
                          'failurePolicy': 'Fail', 'admissionReviewVersions': ['v1', 'v1beta1'], 'sideEffects': 'None'}]}


def install(cluster, release='gmsa-webhook', crd=True, webhooks=True):
    """Install the chart on ``cluster`` (a cluster.Cluster): the CRD (and its kind) and the two webhook configurations
    of the release; ``crd``/``webhooks`` False leave that part out (a cluster half set up)."""
    if cluster.get('Namespace', None, NAMESPACE) is None:
        cluster.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': NAMESPACE}})
    if crd:
        cluster.data.setdefault('custom_kinds', {}).update({kind: list(value) for kind, value in KINDS.items()})
        for kind in KINDS:
            cluster.data['objects'].setdefault(kind, {})
        cluster.create(_crd())
    if webhooks:
        cluster.create(_webhook('MutatingWebhookConfiguration', release, '/mutate', ['CREATE']))
        cluster.create(_webhook('ValidatingWebhookConfiguration', release, '/validate', ['CREATE', 'UPDATE']))
