package cli_test

import (
	"os"
	"testing"
)

// grpcVersion is the google.golang.org/grpc TestWrapGRPC builds, from the
// module proxy.
const grpcVersion = "v1.85.0"

// TestWrapGRPC: a gRPC server and client (grpc-go's health service) in a
// test, under dstreplay test -wrap, pass with every goroutine of both on
// the scheduler over the simulated network, with and without -race, and
// nothing native. Regressions: grpc sets TCP_USER_TIMEOUT through each
// connection's SyscallConn, which a simulated socket refused, so the
// server dropped every connection; grpc 1.85 reads each connection through
// its RawConn, which had no descriptor to read from; and grpc stops each
// stream's deadline timer through an interface, where Go's own Stop
// panicked on a run's timer. It fetches grpc from the proxy and takes a
// minute or two: it runs with DST_GRPC=1 (.ci/run sets it).
func TestWrapGRPC(t *testing.T) {
	if os.Getenv("DST_GRPC") != "1" {
		t.Skip("set DST_GRPC=1 to run a gRPC server and client under the scheduler (fetches google.golang.org/grpc " + grpcVersion + ")")
	}
	m := newOwnModule(t, map[string]string{
		"go.mod": "require google.golang.org/grpc " + grpcVersion + "\n",
		"health_test.go": `package mine

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func TestHealth(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	h := health.NewServer()
	healthpb.RegisterHealthServer(s, h)
	h.SetServingStatus("kv", healthpb.HealthCheckResponse_SERVING)
	go s.Serve(l)
	defer s.Stop()

	conn, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := healthpb.NewHealthClient(conn)
	for range 3 {
		resp, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: "kv"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("status %v", resp.Status)
		}
	}
	if _, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: "none"}); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Fatalf("an unknown service: %v, want NotFound", err)
	}
}
`,
	})
	for _, race := range []string{"", "-race"} {
		t.Run("race="+race, func(t *testing.T) {
			m.wrapPasses(t, "grpc's health service "+race, 200, "-dst.dir=off", race)
		})
	}
}
