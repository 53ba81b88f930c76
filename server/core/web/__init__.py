"""The web kernel: authentication, the one JSON error shape, the write transaction and
request bodies. The JSON API, the OGC API, tiles, uploads, the web pages and the CLI all
use it, so it belongs to none of them."""
