"""What no signature knows: the error region, line templates and masking, the shipped
classifier, and drafts of new signatures (`ha-analyze unknowns --suggest`)."""
