"""marshmallow wire contracts: what goes in and what comes out of the API."""
