"""The deployment files hold what issue 30 asked of them: pinned images and a bucket-scoped
key in compose, private files and a narrow sandbox in the units, no proxy trust baked in."""

from __future__ import annotations

import re

import yaml

from tests.support.env import REPO_ROOT

DEPLOY = REPO_ROOT / "deploy"


def unit(name: str) -> dict[str, str]:
    text = (DEPLOY / "systemd" / name).read_text()
    return dict(re.findall(r"^(\w+)=(.*)$", text, re.M))


def test_the_web_unit_has_no_capabilities_few_address_families_and_private_files():
    web = unit("lateral.service")
    assert web["ProtectKernelModules"] == "yes"
    assert set(web["RestrictAddressFamilies"].split()) == {"AF_INET", "AF_INET6", "AF_UNIX"}
    assert web["CapabilityBoundingSet"] == ""
    assert web["UMask"] == "0027"


def test_every_unit_writes_private_files():
    for path in (DEPLOY / "systemd").glob("*.service"):
        assert unit(path.name).get("UMask") == "0027", path.name


def test_compose_pins_its_images_and_gives_the_app_no_root_credentials():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    for name, service in compose["services"].items():
        image = service.get("image", "")
        if image and not image.startswith("localhost/"):
            assert ":" in image and not image.endswith(":latest"), (name, image)
    env = compose["x-lateral-env"]
    assert "MINIO_ROOT_PASSWORD" not in env["AWS_SECRET_ACCESS_KEY"]
    assert env["AWS_ACCESS_KEY_ID"] != compose["services"]["minio"]["environment"]["MINIO_ROOT_USER"]
    assert "lateral-evidence/*" in compose["services"]["bucket"]["command"][0]


def test_the_image_trusts_no_forwarded_headers_by_itself():
    text = (DEPLOY / "Containerfile").read_text()
    assert not re.search(r"^(ENV\s+|\s+)LATERAL_BEHIND_PROXY=", text, re.M)


def test_nginx_hides_its_version_and_has_a_refusing_default_server():
    text = (DEPLOY / "nginx" / "lateral.conf").read_text()
    assert re.search(r"^server_tokens off;$", text, re.M)
    assert "listen 443 ssl http2 default_server;" in text and "return 444;" in text
