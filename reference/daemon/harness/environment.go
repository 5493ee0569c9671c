package harness

import (
	"context"

	"github.com/wirecheck/wirecheck/reference/daemon/environment"
)

type environmentKey struct{}

// WithEnvironment gives native work the Runtime's bound Environment: a Harness runs in its
// workspace and loads what runtime_prepare installed there.
func WithEnvironment(ctx context.Context, env *environment.Environment) context.Context {
	return context.WithValue(ctx, environmentKey{}, env)
}

// EnvironmentFrom is the bound Environment of native work, nil when the Runtime has none.
func EnvironmentFrom(ctx context.Context) *environment.Environment {
	env, _ := ctx.Value(environmentKey{}).(*environment.Environment)
	return env
}
