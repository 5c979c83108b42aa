package pqflight

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// authHeader is the header that carries "Bearer <token>".
const authHeader = "authorization"

// tokenValidator compares credentials with the token in constant time.
type tokenValidator struct{ token string }

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

// authMiddleware checks the token before a handler runs: a bearer token
// on every call, and on Handshake also basic auth whose password is the
// token, answered with the bearer token in the "authorization" trailer
// (what flight.Client.AuthenticateBasicToken reads). arrow-go's
// CreateServerBasicAuthMiddleware refused a bearer token on Handshake, so
// a client holding the token could call everything but the handshake.
func (s *Server) authMiddleware() flight.ServerMiddleware {
	return flight.ServerMiddleware{
		Unary: func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if err := s.authorize(ctx); err != nil {
				return nil, err
			}
			return handler(ctx, req)
		},
		Stream: func(srv any, stream grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			ctx := stream.Context()
			if s.authorize(ctx) == nil {
				return handler(srv, stream)
			}
			if strings.HasSuffix(info.FullMethod, "/Handshake") && s.basicAuthorized(ctx) {
				stream.SetTrailer(metadata.Pairs(authHeader, "Bearer "+s.opts.Token))
				return handler(srv, stream)
			}
			return status.Error(codes.Unauthenticated, "pqflight: a valid bearer token is required")
		},
	}
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
