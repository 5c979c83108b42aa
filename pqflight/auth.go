package pqflight

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// authHeader is the header that carries "Bearer <token>".
const authHeader = "authorization"

// tokenValidator checks bearer tokens for flight's header middleware.
type tokenValidator struct{ token string }

// Validate accepts basic auth on Handshake when the password is the token,
// so that clients using flight's AuthenticateBasicToken also work.
func (v tokenValidator) Validate(_, password string) (string, error) {
	if !v.equal(password) {
		return "", status.Error(codes.Unauthenticated, "pqflight: wrong token")
	}
	return v.token, nil
}

// IsValid accepts the configured token.
func (v tokenValidator) IsValid(token string) (any, error) {
	if !v.equal(token) {
		return nil, status.Error(codes.Unauthenticated, "pqflight: wrong token")
	}
	return "token", nil
}

func (v tokenValidator) equal(s string) bool {
	return subtle.ConstantTimeCompare([]byte(s), []byte(v.token)) == 1
}

// authorize checks the bearer token of a call when the server has one. The
// middleware already does it; checking again in the handlers keeps an
// embedded Server safe when the embedder forgot the middleware.
func (s *Server) authorize(ctx context.Context) error {
	if s.opts.Token == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(authHeader) {
		scheme, cred, _ := strings.Cut(strings.TrimSpace(v), " ")
		if strings.EqualFold(scheme, "Bearer") && (tokenValidator{s.opts.Token}).equal(strings.TrimLeft(cred, " ")) {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "pqflight: a valid bearer token is required")
}

// basicAuthorized reports whether the call carries basic auth whose
// password is the token.
func (s *Server) basicAuthorized(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(authHeader) {
		scheme, cred, _ := strings.Cut(strings.TrimSpace(v), " ")
		if !strings.EqualFold(scheme, "Basic") {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
		if err != nil {
			raw, err = base64.RawStdEncoding.DecodeString(strings.TrimSpace(cred))
		}
		if err != nil {
			continue
		}
		if _, pass, ok := strings.Cut(string(raw), ":"); ok && (tokenValidator{s.opts.Token}).equal(pass) {
			return true
		}
	}
	return false
}

// BearerToken returns client middleware that sends "authorization: Bearer
// token" with every call, for flight.NewClientWithMiddleware.
func BearerToken(token string) flight.ClientMiddleware {
	return flight.CreateClientMiddleware(bearerMiddleware(token))
}

type bearerMiddleware string

func (b bearerMiddleware) StartCall(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, authHeader, "Bearer "+string(b))
}
