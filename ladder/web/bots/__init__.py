"""Bot pages: upload, versions and logs, retire, download, the public bot page."""
