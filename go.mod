module github.com/vxrun/vx

go 1.26.0

require (
	github.com/bazelbuild/remote-apis v0.0.0-20260908115904-76ddd98e1f92
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/evanw/esbuild v0.28.2
	github.com/fsnotify/fsnotify v1.10.1
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.50.0
	golang.org/x/text v0.31.0
	google.golang.org/genproto/googleapis/bytestream v0.0.0-20260203192932-546029d2fa20
	google.golang.org/grpc v1.76.0
	google.golang.org/protobuf v1.36.11
)

require (
	cloud.google.com/go/longrunning v0.8.0 // indirect
	golang.org/x/net v0.47.0 // indirect
	golang.org/x/tools v0.38.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260203192932-546029d2fa20 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260203192932-546029d2fa20 // indirect
)
