"""HTTP plumbing shared by every dialect: error rendering, stream encoders, body limits, authentication."""
