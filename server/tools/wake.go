package tools

// wait registers a wait for topic with the hub; without one, nothing wakes
// it and it looks every wake.SafetyLook alone.
func (d Deps) wait(topic string) (<-chan string, func()) {
	if d.Wake == nil {
		return nil, func() {}
	}
	return d.Wake.Wait(topic)
}
