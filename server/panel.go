package server

import "net/http"

// panel registers the web panel's routes on mux; the panel's own files
// replace this placeholder.
func (s *Server) panel(mux *http.ServeMux) {}
