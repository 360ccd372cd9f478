package workspace

import "github.com/gorilla/mux"

func muxOf(routes *Routes) *mux.Router {
	r := mux.NewRouter()
	routes.Register(r)
	return r
}
