package main

import (
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
)

// configure enables only the HTTP protocol, on addr.
func configure(cfg *otlpreceiver.Config, addr string) {
	h := *cfg.Protocols.HTTP.GetOrInsertDefault()
	h.ServerConfig.NetAddr.Endpoint = addr
	cfg.Protocols.HTTP = configoptional.Some(h)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
}
