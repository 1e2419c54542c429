package hasstest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// Media pictures, as HA serves them: a media_player's entity_picture
// attribute is "/api/media_player_proxy/<entity_id>?token=<access
// token>&cache=<hash of the image>", and GET on it answers the image the
// integration gave, with its content type, to a request that carries
// either the entity's access token in the query or a valid bearer token;
// 401 to others, 404 when the entity has no picture.

// picture is an image HA proxies for an entity.
type picture struct {
	contentType string
	data        []byte
	fetches     int
}

// entityAccessToken is the access token HA gives an entity's proxy URL.
func entityAccessToken(entityID string) string {
	sum := sha256.Sum256([]byte("access:" + entityID))
	return hex.EncodeToString(sum[:16])
}

// SetPicture makes the fake proxy data as the picture of entityID, and
// returns the entity_picture attribute HA would give it (set it in the
// entity's state for an adapter to see it).
func (s *Server) SetPicture(entityID, contentType string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pictures == nil {
		s.pictures = map[string]*picture{}
	}
	s.pictures[entityID] = &picture{contentType: contentType, data: data}
	sum := sha256.Sum256(data)
	return "/api/media_player_proxy/" + entityID + "?token=" + entityAccessToken(entityID) + "&cache=" + hex.EncodeToString(sum[:8])
}

// PictureFetches is how many times entityID's picture was served.
func (s *Server) PictureFetches(entityID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pictures[entityID]; p != nil {
		return p.fetches
	}
	return 0
}

func (s *Server) servePicture(w http.ResponseWriter, r *http.Request) {
	entityID := strings.TrimPrefix(r.URL.Path, "/api/media_player_proxy/")
	authorized := r.Header.Get("Authorization") == "Bearer "+s.token || r.URL.Query().Get("token") == entityAccessToken(entityID)
	if !authorized {
		s.mu.Lock()
		s.restRefused++
		s.mu.Unlock()
		http.Error(w, "401: Unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	p := s.pictures[entityID]
	var data []byte
	ct := ""
	if p != nil {
		p.fetches++
		data, ct = p.data, p.contentType
	}
	s.mu.Unlock()
	if p == nil || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "private, max-age=31536000")
	_, _ = w.Write(data)
}
