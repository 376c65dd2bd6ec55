# bash completion for mqadmin, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

_mqadmin() {
    local cur=${COMP_WORDS[COMP_CWORD]} path='' word='' opt='' prefix='' i need=0 pos=0
    local -a gen=()
    COMPREPLY=()
    # Walk the words before the cursor: sub-commands extend the path, options skip their values.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if ((need > 0)); then
            [[ $word == = ]] || need=$((need - 1))  # COMP_WORDBREAKS splits --opt=value into 3 words
            continue
        fi
        case $word in
        -*)
            opt=$word
            case $path in
            '')
                case $word in
                '--accessKey' | '--secretKey' | '--credentialsFile' | '--tlsCaFile' | '--tlsCertFile' |\
                    '--tlsKeyFile') need=1 ;;
                esac
                ;;
            'addBroker' | 'add-broker')
                case $word in
                '-c' | '--brokerContainerAddr' | '-b' | '--brokerConfigPath' | '-o' | '--output' | '--timeout' |\
                    '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'assign-preferred-master' | 'transferMaster' | 'transfer-master')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-bn' | '--brokerName' | '-b' |\
                    '--brokerId' | '--timeout' | '-o' | '--output' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'cleanBrokerMetadata' | 'clean-broker-metadata')
                case $word in
                '-a' | '--controllerAddress' | '-bn' | '--brokerName' | '-b' | '--brokerControllerIdsToClean' |\
                    '-c' | '--clusterName' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'clusterList' | 'cluster-list')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-o' | '--output' | '--timeout' | '-i' |\
                    '--interval' | '--count' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'consumeMessage' | 'consume-message')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-b' | '-bn' | '--brokerName' | '-i' | '-q' |\
                    '--queueId' | '--offset' | '-c' | '--MessageNumber' | '--max' | '--brokerAddr' | '-g' |\
                    '--consumerGroup' | '--filter' | '--invisible-time' | '--wait' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'consumerProgress' | 'consumer-progress')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-t' | '--topic' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'deleteSubGroup' | 'delete-sub-group')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-g' | '--groupName' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'deleteTopic' | 'delete-topic')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-t' | '--topic' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'electMaster' | 'elect-master')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-bn' | '--brokerName' | '-b' |\
                    '--brokerId' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'epochs collect')
                case $word in
                '--out' | '--fleet' | '-a' | '--controllerAddress' | '-c' | '--cluster-name' | '--clusterName' |\
                    '--from-stores' | '-o' | '--output' | '--timeout') need=1 ;;
                esac
                ;;
            'epochs report')
                case $word in
                '--input' | '--master' | '--remote' | '--since' | '--top' | '--out' | '--conf' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'epochs serve')
                case $word in
                '--port' | '--master' | '--conf' | '--start-timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'epochs synth')
                case $word in
                '--out' | '--clusters' | '--sets' | '--replicas' | '--epochs' | '--seed' | '--snapshots' | '-o' |\
                    '--output') need=1 ;;
                esac
                ;;
            'getBrokerConfig' | 'get-broker-config')
                case $word in
                '-a' | '--controllerAddress' | '-b' | '--brokerAddr' | '-c' | '--clusterName' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'getBrokerEpoch' | 'getSyncStateSet' | 'get-broker-epoch' | 'get-sync-state-set')
                case $word in
                '-a' | '--controllerAddress' | '-b' | '--brokerName' | '-c' | '--clusterName' | '-o' | '--output' |\
                    '--timeout' | '-i' | '--interval' | '--count' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'getConsumerConfig' | 'get-consumer-config')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'getControllerConfig' | 'getControllerMetaData' | 'get-controller-config' | 'get-controller-meta-data')
                case $word in
                '-a' | '--controllerAddress' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'haStatus' | 'ha-status')
                case $word in
                '-a' | '--controllerAddress' | '-b' | '--brokerAddr' | '-c' | '--clusterName' | '-o' | '--output' |\
                    '--timeout' | '-i' | '--interval' | '--count' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'listBrokers' | 'list-brokers')
                case $word in
                '-c' | '--brokerContainerAddr' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'removeBroker' | 'remove-broker')
                case $word in
                '-c' | '--brokerContainerAddr' | '-b' | '--brokerIdentity' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'resetMasterFlushOffset' | 'reset-master-flush-offset')
                case $word in
                '-b' | '--brokerAddr' | '--offset' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'resetOffsetByOffset' | 'reset-offset-by-offset')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-t' | '--topic' | '-b' | '--brokerName' |\
                    '-i' | '-q' | '--queueId' | '--offset' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'resetOffsetByTime' | 'reset-offset-by-time')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-t' | '--topic' | '-s' | '--timestamp' |\
                    '-f' | '--force' | '-b' | '--brokerName' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'sandbox down' | 'sandbox start' | 'sandbox status' | 'sandbox stop')
                case $word in
                '--dir' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'sandbox kill')
                case $word in
                '--dir' | '--signal' | '-bn' | '--brokerName' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'sandbox up')
                case $word in
                '--dir' | '--controllers' | '--broker-sets' | '--replicas' | '--cluster-name' | '--broker-conf' |\
                    '--controller-conf' | '--timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'sendMessage' | 'send-message')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-p' | '--body' | '-k' | '--key' | '--keys' |\
                    '-c' | '--tags' | '--message-group' | '--property' | '-b' | '-bn' | '--broker' | '--brokerName' |\
                    '-i' | '-q' | '--qid' | '--queueId' | '--count' | '--deliverTime' | '--delay' | '-o' |\
                    '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'topicList' | 'topic-list')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'topicRoute' | 'topicStatus' | 'topic-route' | 'topic-status')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateBrokerConfig' | 'update-broker-config')
                case $word in
                '-k' | '--key' | '-v' | '--value' | '-a' | '--controllerAddress' | '-b' | '--brokerAddr' | '-c' |\
                    '--clusterName' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateControllerConfig' | 'update-controller-config')
                case $word in
                '-a' | '--controllerAddress' | '-k' | '--key' | '-v' | '--value' | '-o' | '--output' | '--timeout' |\
                    '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateSubGroup' | 'update-sub-group')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-c' | '--clusterName' | '-b' |\
                    '--brokerName' | '--consume-orderly' | '-r' | '--retryMaxTimes' | '-q' | '--groupRetryPolicy' |\
                    '--consume-enable' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateTopic' | 'update-topic')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-c' | '--clusterName' | '-b' | '--brokerName' |\
                    '-r' | '--readQueueNums' | '-w' | '--writeQueueNums' | '-p' | '--perm' | '--attributes' | '-o' |\
                    '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'wait insync')
                case $word in
                '-a' | '--controllerAddress' | '-bn' | '--brokerName' | '-n' | '--members' | '--timeout' | '-o' |\
                    '--output') need=1 ;;
                esac
                ;;
            'wait master')
                case $word in
                '-a' | '--controllerAddress' | '-bn' | '--brokerName' | '--other-than' | '-b' | '--brokerId' |\
                    '--timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'wait quorum')
                case $word in
                '-a' | '--controllerAddress' | '--timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            esac
            ;;
        *)
            case "$path|$word" in
            '|addBroker' | '|assign-preferred-master' | '|cleanBrokerMetadata' | '|clusterList' | '|consumeMessage' |\
                '|consumerProgress' | '|deleteSubGroup' | '|deleteTopic' | '|electMaster' | '|epochs' |\
                '|getBrokerConfig' | '|getBrokerEpoch' | '|getConsumerConfig' | '|getControllerConfig' |\
                '|getControllerMetaData' | '|getSyncStateSet' | '|haStatus' | '|listBrokers' | '|removeBroker' |\
                '|resetMasterFlushOffset' | '|resetOffsetByOffset' | '|resetOffsetByTime' | '|sandbox' |\
                '|sendMessage' | '|topicList' | '|topicRoute' | '|topicStatus' | '|transferMaster' |\
                '|updateBrokerConfig' | '|updateControllerConfig' | '|updateSubGroup' | '|updateTopic' | '|wait' |\
                '|add-broker' | '|clean-broker-metadata' | '|cluster-list' | '|consume-message' |\
                '|consumer-progress' | '|delete-sub-group' | '|delete-topic' | '|elect-master' |\
                '|get-broker-config' | '|get-broker-epoch' | '|get-consumer-config' | '|get-controller-config' |\
                '|get-controller-meta-data' | '|get-sync-state-set' | '|ha-status' | '|list-brokers' |\
                '|remove-broker' | '|reset-master-flush-offset' | '|reset-offset-by-offset' |\
                '|reset-offset-by-time' | '|send-message' | '|topic-list' | '|topic-route' | '|topic-status' |\
                '|transfer-master' | '|update-broker-config' | '|update-controller-config' | '|update-sub-group' |\
                '|update-topic' | 'epochs|collect' | 'epochs|report' | 'epochs|serve' | 'epochs|synth' |\
                'sandbox|down' | 'sandbox|kill' | 'sandbox|start' | 'sandbox|status' | 'sandbox|stop' |\
                'sandbox|up' | 'wait|insync' | 'wait|master' | 'wait|quorum') path=${path:+$path }$word pos=0 ;;
            *) pos=$((pos + 1)) ;;
            esac
            ;;
        esac
    done
    if ((need == 0)) && [[ $cur == -*=* ]]; then  # --opt=value as one word
        opt=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=} need=1
    fi
    if ((need > 0)); then
        [[ $cur == = ]] && cur=''
        case $path in
        '')
            case $opt in
            '--credentialsFile' | '--tlsCaFile' | '--tlsCertFile' | '--tlsKeyFile') gen=(-f) ;;
            esac
            ;;
        'addBroker' | 'add-broker')
            case $opt in
            '-b' | '--brokerConfigPath') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'assign-preferred-master' | 'cleanBrokerMetadata' | 'clusterList' | 'consumeMessage' | 'consumerProgress' |\
            'deleteSubGroup' | 'deleteTopic' | 'electMaster' | 'epochs serve' | 'getBrokerConfig' |\
            'getBrokerEpoch' | 'getConsumerConfig' | 'getControllerConfig' | 'getControllerMetaData' |\
            'getSyncStateSet' | 'haStatus' | 'listBrokers' | 'removeBroker' | 'resetMasterFlushOffset' |\
            'resetOffsetByOffset' | 'resetOffsetByTime' | 'sendMessage' | 'topicList' | 'topicRoute' |\
            'topicStatus' | 'transferMaster' | 'updateBrokerConfig' | 'updateControllerConfig' | 'updateSubGroup' |\
            'updateTopic' | 'wait insync' | 'wait master' | 'wait quorum' | 'clean-broker-metadata' |\
            'cluster-list' | 'consume-message' | 'consumer-progress' | 'delete-sub-group' | 'delete-topic' |\
            'elect-master' | 'get-broker-config' | 'get-broker-epoch' | 'get-consumer-config' |\
            'get-controller-config' | 'get-controller-meta-data' | 'get-sync-state-set' | 'ha-status' |\
            'list-brokers' | 'remove-broker' | 'reset-master-flush-offset' | 'reset-offset-by-offset' |\
            'reset-offset-by-time' | 'send-message' | 'topic-list' | 'topic-route' | 'topic-status' |\
            'transfer-master' | 'update-broker-config' | 'update-controller-config' | 'update-sub-group' |\
            'update-topic')
            case $opt in
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'epochs collect')
            case $opt in
            '--out' | '--fleet' | '--from-stores') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'epochs report')
            case $opt in
            '--input' | '--out') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'epochs synth')
            case $opt in
            '--out') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'sandbox down' | 'sandbox kill' | 'sandbox start' | 'sandbox status' | 'sandbox stop' | 'sandbox up')
            case $opt in
            '--dir') gen=(-d) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        esac
    elif [[ $cur == -* ]]; then
        case $path in
        '') gen=(-W '--accessKey --secretKey --credentialsFile --tls --tlsCaFile --tlsCertFile --tlsKeyFile --version -h --help') ;;
        'addBroker' | 'add-broker') gen=(-W '-c --brokerContainerAddr -b --brokerConfigPath -o --output --timeout -n --namesrvAddr -h --help') ;;
        'assign-preferred-master') gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --clear --wait --timeout -o --output -n --namesrvAddr -h --help') ;;
        'cleanBrokerMetadata' | 'clean-broker-metadata') gen=(-W '-a --controllerAddress -bn --brokerName -b --brokerControllerIdsToClean --wholeSet -c --clusterName -l --cleanLivingBroker -o --output --timeout -n --namesrvAddr -h --help') ;;
        'clusterList' | 'cluster-list') gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'consumeMessage' | 'consume-message') gen=(-W '-a --controllerAddress -t --topic -b -bn --brokerName -i -q --queueId --offset -c --MessageNumber --max --brokerAddr -g --consumerGroup --filter --invisible-time --wait --no-ack -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerProgress' | 'consumer-progress') gen=(-W '-a --controllerAddress -g --groupName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteSubGroup' | 'delete-sub-group') gen=(-W '-a --controllerAddress -c --clusterName -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteTopic' | 'delete-topic') gen=(-W '-a --controllerAddress -c --clusterName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'electMaster' | 'elect-master') gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId -o --output --timeout -n --namesrvAddr -h --help') ;;
        'epochs' | 'sandbox' | 'wait') gen=(-W '-h --help') ;;
        'epochs collect') gen=(-W '--out --fleet -a --controllerAddress -c --cluster-name --clusterName --from-stores --strict -o --output --timeout -h --help') ;;
        'epochs report') gen=(-W '--input --master --remote --since --top --out --details --conf -o --output -h --help') ;;
        'epochs serve') gen=(-W '--port --master --conf --start-timeout -o --output -h --help') ;;
        'epochs synth') gen=(-W '--out --clusters --sets --replicas --epochs --seed --snapshots -o --output -h --help') ;;
        'getBrokerConfig' | 'get-broker-config') gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'getBrokerEpoch' | 'getSyncStateSet' | 'get-broker-epoch' | 'get-sync-state-set') gen=(-W '-a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'getConsumerConfig' | 'get-consumer-config') gen=(-W '-a --controllerAddress -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'getControllerConfig' | 'getControllerMetaData' | 'get-controller-config' | 'get-controller-meta-data') gen=(-W '-a --controllerAddress -o --output --timeout -n --namesrvAddr -h --help') ;;
        'haStatus' | 'ha-status') gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'listBrokers' | 'list-brokers') gen=(-W '-c --brokerContainerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'removeBroker' | 'remove-broker') gen=(-W '-c --brokerContainerAddr -b --brokerIdentity -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetMasterFlushOffset' | 'reset-master-flush-offset') gen=(-W '-b --brokerAddr --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByOffset' | 'reset-offset-by-offset') gen=(-W '-a --controllerAddress -g --groupName -t --topic -b --brokerName -i -q --queueId --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByTime' | 'reset-offset-by-time') gen=(-W '-a --controllerAddress -g --groupName -t --topic -s --timestamp -f --force -b --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'sandbox down') gen=(-W '--dir --purge -o --output -h --help') ;;
        'sandbox kill') gen=(-W '--dir --signal -bn --brokerName -o --output -h --help') ;;
        'sandbox start' | 'sandbox status' | 'sandbox stop') gen=(-W '--dir -o --output -h --help') ;;
        'sandbox up') gen=(-W '--dir --controllers --broker-sets --replicas --cluster-name --broker-conf --controller-conf --timeout --secure -o --output -h --help') ;;
        'sendMessage' | 'send-message') gen=(-W '-a --controllerAddress -t --topic -p --body -k --key --keys -c --tags --message-group --property -b -bn --broker --brokerName -i -q --qid --queueId --count --deliverTime --delay -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicList' | 'topic-list') gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicRoute' | 'topicStatus' | 'topic-route' | 'topic-status') gen=(-W '-a --controllerAddress -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'transferMaster' | 'transfer-master') gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --timeout --dry-run -o --output -n --namesrvAddr -h --help') ;;
        'updateBrokerConfig' | 'update-broker-config') gen=(-W '-k --key -v --value -a --controllerAddress -b --brokerAddr -c --clusterName --reachable-only -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateControllerConfig' | 'update-controller-config') gen=(-W '-a --controllerAddress -k --key -v --value -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateSubGroup' | 'update-sub-group') gen=(-W '-a --controllerAddress -g --groupName -c --clusterName -b --brokerName --consume-orderly -r --retryMaxTimes -q --groupRetryPolicy --consume-enable -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateTopic' | 'update-topic') gen=(-W '-a --controllerAddress -t --topic -c --clusterName -b --brokerName -r --readQueueNums -w --writeQueueNums -p --perm --attributes -o --output --timeout -n --namesrvAddr -h --help') ;;
        'wait insync') gen=(-W '-a --controllerAddress -bn --brokerName -n --members --timeout -o --output -h --help') ;;
        'wait master') gen=(-W '-a --controllerAddress -bn --brokerName --other-than -b --brokerId --timeout -o --output -h --help') ;;
        'wait quorum') gen=(-W '-a --controllerAddress --timeout -o --output -h --help') ;;
        esac
    else
        case "$path|$pos" in
        '|0') gen=(-W 'addBroker assign-preferred-master cleanBrokerMetadata clusterList consumeMessage consumerProgress deleteSubGroup deleteTopic electMaster epochs getBrokerConfig getBrokerEpoch getConsumerConfig getControllerConfig getControllerMetaData getSyncStateSet haStatus listBrokers removeBroker resetMasterFlushOffset resetOffsetByOffset resetOffsetByTime sandbox sendMessage topicList topicRoute topicStatus transferMaster updateBrokerConfig updateControllerConfig updateSubGroup updateTopic wait') ;;
        'epochs|0') gen=(-W 'collect report serve synth') ;;
        'sandbox|0') gen=(-W 'down kill start status stop up') ;;
        'sandbox kill|0' | 'sandbox start|0' | 'sandbox stop|0') ;;
        'wait|0') gen=(-W 'insync master quorum') ;;
        'addBroker|'* | 'add-broker|'*) gen=(-W '-c --brokerContainerAddr -b --brokerConfigPath -o --output --timeout -n --namesrvAddr -h --help') ;;
        'assign-preferred-master|'*) gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --clear --wait --timeout -o --output -n --namesrvAddr -h --help') ;;
        'cleanBrokerMetadata|'* | 'clean-broker-metadata|'*) gen=(-W '-a --controllerAddress -bn --brokerName -b --brokerControllerIdsToClean --wholeSet -c --clusterName -l --cleanLivingBroker -o --output --timeout -n --namesrvAddr -h --help') ;;
        'clusterList|'* | 'cluster-list|'*) gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'consumeMessage|'* | 'consume-message|'*) gen=(-W '-a --controllerAddress -t --topic -b -bn --brokerName -i -q --queueId --offset -c --MessageNumber --max --brokerAddr -g --consumerGroup --filter --invisible-time --wait --no-ack -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerProgress|'* | 'consumer-progress|'*) gen=(-W '-a --controllerAddress -g --groupName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteSubGroup|'* | 'delete-sub-group|'*) gen=(-W '-a --controllerAddress -c --clusterName -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteTopic|'* | 'delete-topic|'*) gen=(-W '-a --controllerAddress -c --clusterName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'electMaster|'* | 'elect-master|'*) gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId -o --output --timeout -n --namesrvAddr -h --help') ;;
        'epochs collect|'*) gen=(-W '--out --fleet -a --controllerAddress -c --cluster-name --clusterName --from-stores --strict -o --output --timeout -h --help') ;;
        'epochs report|'*) gen=(-W '--input --master --remote --since --top --out --details --conf -o --output -h --help') ;;
        'epochs serve|'*) gen=(-W '--port --master --conf --start-timeout -o --output -h --help') ;;
        'epochs synth|'*) gen=(-W '--out --clusters --sets --replicas --epochs --seed --snapshots -o --output -h --help') ;;
        'getBrokerConfig|'* | 'get-broker-config|'*) gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'getBrokerEpoch|'* | 'getSyncStateSet|'* | 'get-broker-epoch|'* | 'get-sync-state-set|'*) gen=(-W '-a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'getConsumerConfig|'* | 'get-consumer-config|'*) gen=(-W '-a --controllerAddress -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'getControllerConfig|'* | 'getControllerMetaData|'* | 'get-controller-config|'* |\
            'get-controller-meta-data|'*) gen=(-W '-a --controllerAddress -o --output --timeout -n --namesrvAddr -h --help') ;;
        'haStatus|'* | 'ha-status|'*) gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'listBrokers|'* | 'list-brokers|'*) gen=(-W '-c --brokerContainerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'removeBroker|'* | 'remove-broker|'*) gen=(-W '-c --brokerContainerAddr -b --brokerIdentity -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetMasterFlushOffset|'* | 'reset-master-flush-offset|'*) gen=(-W '-b --brokerAddr --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByOffset|'* | 'reset-offset-by-offset|'*) gen=(-W '-a --controllerAddress -g --groupName -t --topic -b --brokerName -i -q --queueId --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByTime|'* | 'reset-offset-by-time|'*) gen=(-W '-a --controllerAddress -g --groupName -t --topic -s --timestamp -f --force -b --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'sandbox down|'*) gen=(-W '--dir --purge -o --output -h --help') ;;
        'sandbox kill|'*) gen=(-W '--dir --signal -bn --brokerName -o --output -h --help') ;;
        'sandbox start|'* | 'sandbox status|'* | 'sandbox stop|'*) gen=(-W '--dir -o --output -h --help') ;;
        'sandbox up|'*) gen=(-W '--dir --controllers --broker-sets --replicas --cluster-name --broker-conf --controller-conf --timeout --secure -o --output -h --help') ;;
        'sendMessage|'* | 'send-message|'*) gen=(-W '-a --controllerAddress -t --topic -p --body -k --key --keys -c --tags --message-group --property -b -bn --broker --brokerName -i -q --qid --queueId --count --deliverTime --delay -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicList|'* | 'topic-list|'*) gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicRoute|'* | 'topicStatus|'* | 'topic-route|'* | 'topic-status|'*) gen=(-W '-a --controllerAddress -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'transferMaster|'* | 'transfer-master|'*) gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --timeout --dry-run -o --output -n --namesrvAddr -h --help') ;;
        'updateBrokerConfig|'* | 'update-broker-config|'*) gen=(-W '-k --key -v --value -a --controllerAddress -b --brokerAddr -c --clusterName --reachable-only -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateControllerConfig|'* | 'update-controller-config|'*) gen=(-W '-a --controllerAddress -k --key -v --value -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateSubGroup|'* | 'update-sub-group|'*) gen=(-W '-a --controllerAddress -g --groupName -c --clusterName -b --brokerName --consume-orderly -r --retryMaxTimes -q --groupRetryPolicy --consume-enable -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateTopic|'* | 'update-topic|'*) gen=(-W '-a --controllerAddress -t --topic -c --clusterName -b --brokerName -r --readQueueNums -w --writeQueueNums -p --perm --attributes -o --output --timeout -n --namesrvAddr -h --help') ;;
        'wait insync|'*) gen=(-W '-a --controllerAddress -bn --brokerName -n --members --timeout -o --output -h --help') ;;
        'wait master|'*) gen=(-W '-a --controllerAddress -bn --brokerName --other-than -b --brokerId --timeout -o --output -h --help') ;;
        'wait quorum|'*) gen=(-W '-a --controllerAddress --timeout -o --output -h --help') ;;
        esac
    fi
    ((${#gen[@]})) || return 0
    [[ ${gen[0]} == -W ]] || compopt -o filenames 2>/dev/null
    while IFS= read -r word; do
        COMPREPLY+=("$prefix$word")
    done < <(compgen "${gen[@]}" -- "$cur")
    return 0
}

complete -F _mqadmin mqadmin
