"""The network's JSON API: the layer registry, each layer's features, and exports."""
