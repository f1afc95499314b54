"""The figures of a download (kubewin.node.artifact's ``download`` result) and the line shown for them at -v."""

import pytest

from ansible_collections.kubewin.node.plugins.plugin_utils._artifacts import describe, figures, size_text

MIB = 2 ** 20


@pytest.mark.parametrize('count, text', [
    (0, '0 B'), (83, '83 B'), (1023, '1023 B'), (1024, '1.0 KiB'), (1536, '1.5 KiB'),
    (int(118.3 * MIB), '118.3 MiB'), (5 * 2 ** 30, '5.0 GiB'), (3 * 2 ** 40, '3072.0 GiB'),
])
def test_sizes_are_written_in_binary_units(count, text):
    assert size_text(count) == text


def test_a_download_on_the_node_has_its_size_time_and_rate():
    download = figures('kubelet.exe', 'downloaded', int(118.3 * MIB), 14.2345, 1)
    assert download == {'file': 'kubelet.exe', 'status': 'downloaded', 'bytes': int(118.3 * MIB), 'seconds': 14.235,
                        'bytes_per_second': round(int(118.3 * MIB) / 14.2345), 'attempts': 1}
    assert describe(download) == 'kubelet.exe: 118.3 MiB in 14.2 s (8.3 MiB/s)'


def test_retries_are_named_and_the_rate_is_the_successful_attempts():
    download = figures('containerd-2.1.4-windows-amd64.tar.gz', 'downloaded', 40 * MIB, 10.0, 3)
    assert describe(download) == 'containerd-2.1.4-windows-amd64.tar.gz: 40.0 MiB in 10.0 s (4.0 MiB/s) at attempt 3'


def test_a_download_too_short_to_time_has_no_rate():
    download = figures('nssm-2.24.zip', 'downloaded', 1024, 0.0, 1)
    assert download['bytes_per_second'] is None
    assert describe(download) == 'nssm-2.24.zip: 1.0 KiB in 0.0 s'


def test_a_controller_download_shows_the_download_and_the_copy_to_the_node():
    download = figures('kubelet.exe', 'downloaded', 100 * MIB, 4.0, 1, copy_seconds=50.0)
    assert download['copy_bytes_per_second'] == 2 * MIB
    assert describe(download) == ('kubelet.exe: 100.0 MiB in 4.0 s (25.0 MiB/s) on the controller; '
                                  'copied to the node in 50.0 s (2.0 MiB/s)')


def test_a_file_from_the_controllers_cache_shows_only_the_copy():
    download = figures('kubelet.exe', 'cached', 100 * MIB, copy_seconds=25.0)
    assert download == {'file': 'kubelet.exe', 'status': 'cached', 'bytes': 100 * MIB, 'copy_seconds': 25.0,
                        'copy_bytes_per_second': 4 * MIB}
    assert describe(download) == "kubelet.exe: 100.0 MiB from the controller's cache; copied to the node in 25.0 s (4.0 MiB/s)"


def test_nothing_downloaded_says_why():
    assert describe(figures('kubelet.exe', 'present')) == 'kubelet.exe: already in place, verified by its hash; not downloaded'
    assert describe(figures('kubelet.exe', 'pending')) == 'kubelet.exe: would be downloaded (check mode)'
