#!/bin/bash

# Parameters
#SBATCH --constraint=tesla_v100
#SBATCH --cpus-per-task=10
#SBATCH --error=PATH
#SBATCH --gpus-per-node=4
#SBATCH --job-name=JOB_NAME
#SBATCH --mem=450GB
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --open-mode=append
#SBATCH --output=PATH
#SBATCH --partition=PARTITION_NAME
#SBATCH --signal=USR2@120
#SBATCH --time=1440
#SBATCH --wckey=submitit

# command
export SUBMITIT_EXECUTOR=slurm
srun --unbuffered --output path/to/logs --error path/to/err python -u -m submitit.core._submit path/to/submitit_dir
