package pqflight

// Active returns the number of DoGet and DoPut handlers running.
func (s *Server) Active() int64 { return s.active.Load() }
