"""The source paper of the `summary-paper` task, in Chinese and in English (article 003, §5.3).

The article asks for a ≤200-character summary of "a 2800-character research paper with methods,
results and limits" but does not give the paper. This one is written here for the task: a
fictional field trial (the place, the farm and every figure are invented), about 2800 characters
in each language, with figures, units and a baseline. Both versions state the same figures; the
key facts a summary should keep, and how a checker finds them, are in evaluation/tasks/summary.py.
"""

from __future__ import annotations

PAPER_ZH = """\
土壤湿度触发的温室番茄滴灌：一个生长季的对照试验

一、背景
北方日光温室和塑料大棚里的番茄滴灌，大多仍按固定时间表进行：每天在固定时刻开泵，灌水时长凭经验设定，\
整个生长季很少调整。这种定时灌溉简单可靠，农户容易掌握，但它不考虑天气和植株需水的变化。阴天、低温和\
定植后的生长前期，植株蒸腾很弱，按时灌下去的水大量下渗或滞留在土壤表层，既浪费水和电，又抬高棚内湿度，\
增加灰霉病等病害的风险；而在晴热的结果盛期，同样的时间表又可能供水不足。华北地区地下水超采严重，\
设施农业的节水因此格外重要。一座温室一季的灌溉用水，往往占到农户生产成本中不小的一块，\
而多灌的水还会带走肥料，造成浪费和污染。

按土壤实际含水量决定何时灌水，是公认更合理的做法，但过去的土壤水分传感器价格高、安装和维护复杂，\
主要用于科研。近年来电容式传感器和低功耗无线电模块的价格明显下降，使“按需灌溉”有可能进入普通农户的\
温室。可是，在真实生产条件下这类廉价设备能否长期可靠、能节约多少水、会不会影响产量和品质，公开的\
田间数据仍然很少。本研究在一个生长季内，把传感器触发的滴灌与农户惯用的定时灌溉放在同一座温室中比较，\
回答三个问题：用水量能减少多少；产量和果实品质是否受到影响；传感器在生产环境中是否可靠。

二、材料与方法
试验于2024年2月20日至6月24日（共126天）在山东寿光一座面积2400平方米的塑料大棚内进行。土壤为壤土，\
品种为“普罗旺斯”番茄，定植密度为每平方米2.8株，施肥、整枝和病虫害防治均按农户常规进行，两种处理完全相同。\
温室中划出24个小区，每个小区60平方米，按随机区组设计分成12个区组；每个区组内，一个小区采用传感器控制，\
另一个小区采用定时灌溉作为对照基线，区组沿温室的长轴排列，以抵消光照和温度的梯度。

传感器控制：每个小区在15厘米深处、两株之间埋设一个电容式土壤湿度传感器，节点通过LoRa无线电每10分钟\
上报一次体积含水量，网关把数据写入一台放在看护房里的小电脑。当含水量低于26%时电磁阀开启，升到33%时关闭；\
两个阈值参照当地农技站对壤土番茄的建议确定，试验期间没有调整。每个节点由两节5号电池供电，材料成本约14美元\
（约100元人民币），按实测耗电估算电池寿命为11个月。

定时灌溉（基线）：沿用该农户多年的做法，每天08:00和14:00各灌水20分钟，不随天气和生育期调整。两种处理\
使用同一型号的滴灌带，滴头流量均为每小时1.6升，由同一台水泵供水。

测定内容：每个小区安装独立的水表，逐日记录灌水量；每次采收时称量小区内全部果实，累计得到单位面积产量；\
在第三穗果成熟期，每个小区随机取30个果实测定可溶性固形物含量（糖度，单位°Brix）。传感器读数每月用烘干法\
取土校准一次，并记录节点的故障和维修情况。统计检验采用12个区组的配对t检验，显著性水平取0.05。

环境监测与数据处理：棚内中部安装一台温湿度记录仪，每30分钟记录一次气温和空气相对湿度，用来解释不同时期\
用水量的差异。每个小区的逐日用水量由相邻两天的水表读数相减得到；遇到读数异常的日子，用前后两天的平均值代替，\
全季被替换的数据不到百分之一。产量按采收日期逐次累加，只计入可以上市的果实，畸形果和裂果单独称重，不计入产量。\
所有分析在试验结束后一次完成，分析方法在试验开始前就已确定，没有在看到数据之后更改。

三、结果
用水量：整个生长季，传感器控制小区平均用水3120立方米每公顷，定时灌溉小区为4050立方米每公顷，\
每公顷少用930立方米，即节水23%。节水主要发生在3月的连阴天和定植后的前五周：这段时间定时灌溉的供水\
明显多于植株需要，而传感器控制的小区有时连续几天不灌水。进入5月结果盛期后，两种处理的日用水量已相差不大。

产量与品质：传感器控制小区的产量为每平方米17.8公斤，定时灌溉为18.1公斤，相差1.7%，差异不显著（p=0.41）。\
水分生产率（每立方米灌溉水产出的果实）从44.7公斤提高到57.1公斤，提高28%。果实糖度由5.6°Brix升至\
5.9°Brix（p=0.03），这可能与生长后期土壤略干有关，但本试验不能确定其原因。

可靠性：12个传感器节点中有2个（17%）在季中因接头锈蚀失灵，均在2天内更换，失灵期间该小区改为人工判断灌水；\
失灵的两个节点都位于温室入口附近，那里早晚温差大、冷凝水多。\
与烘干法相比，传感器读数在一季内累计漂移了3.5个百分点；若不每月校准，读数会逐渐偏高，灌水会被推迟。\
无线链路稳定，数据缺失不足百分之一。

四、讨论
节水的来源值得分开来看。定时方案的问题不在于每次灌得太多，而在于它对天气不敏感：晴天和阴天灌同样多的水。\
传感器控制并没有改变每次灌水的深度，而是在植株用水少的日子里少灌或者不灌，因此节约集中在生长前期和连阴天。\
这也意味着，在一个管理本来就很精细、会根据天气手动调整灌水的温室里，节水幅度会比本试验小。

产量没有显著下降，但这并不等于证明了产量不受影响：只有12个区组，配对差值的置信区间较宽，产量下降5%左右的\
可能性不能排除。对于按产量计算收入的农户来说，这一点比节水更关键，需要更多的重复来缩小不确定性。水分生产率的\
提高则比较稳健，因为它主要来自用水量的下降，而用水量的差异在全部区组中方向一致。

从成本看，一个节点约100元人民币，电池可用大半年，硬件投入并不高；真正的负担在维护：每月校准、更换失灵的\
节点和检查线路都需要人工，也需要一定的技术能力。把校准做成更简单的现场操作，或者用能自动校正漂移的算法，\
是降低维护负担的两个方向。

五、局限
第一，试验只有一个生长季、一座温室、一个品种和一种壤土，夏季高温和沙质土壤下的效果未经检验。第二，\
对照基线是该农户自己的定时方案，而不是经过优化的时间表；与优化后的定时灌溉相比，节水幅度可能更小。\
第三，每月校准每个节点约需0.5小时人工，本文没有把这部分人工计入成本。第四，17%的节点失灵率说明硬件的\
防水和防腐还需改进，更长时间的耐久性仍不清楚。第五，糖度的差异只测了一次，不足以作为品质改善的证据。第六，用水量只计量了灌溉水，没有计量\
棚膜冷凝水滴落等其他来源对土壤水分的影响。

六、结论
在本试验条件下，土壤湿度触发的滴灌比农户惯用的定时灌溉节水23%，产量没有显著下降，水分生产率提高28%。\
要在生产中推广，还需要解决传感器漂移和节点耐久性的问题，并在更多的季节、土壤和温室中重复验证。对正在考虑采用这类设备的农户，我们的建议是：先在一两个棚里\
与原有的定时方案并排试用一季，按本文的方法记录用水和产量，再决定是否推广，同时备好备用节点，并安排专人每月校准。
"""

PAPER_EN = """\
Sensor-triggered drip irrigation for greenhouse tomatoes: a one-season controlled trial

Background. Drip irrigation of greenhouse tomatoes in northern China mostly follows a fixed timer: the pump \
runs at set hours for a set time, whatever the weather. Cheap soil-moisture sensors could water on demand, but \
field data on their savings and reliability are scarce. We compared the two in one greenhouse over one season.

Methods. The trial ran from 20 February to 24 June 2024 (126 days) in a 2,400 m² plastic greenhouse in \
Shouguang, Shandong, on loam soil, with the tomato cultivar 'Provence' at 2.8 plants per m². Twenty-four plots \
of 60 m² formed 12 randomised blocks; in each block one plot was sensor-controlled and one followed the farm's \
timer schedule, the baseline: 20 minutes at 08:00 and at 14:00 every day. In sensor plots a capacitive sensor at \
15 cm depth reported volumetric water content by LoRa radio every 10 minutes; a valve opened below 26% and closed \
at 33%. A node cost about 14 USD, with an estimated battery life of 11 months. Emitters delivered 1.6 L per hour \
in both treatments. We metered water per plot, weighed every harvest, and measured sugar (°Brix) in 30 fruits \
per plot. Sensors were recalibrated monthly against oven-dried soil samples. Treatments were compared with a \
paired t-test over the 12 blocks.

Results. Sensor plots used 3,120 m³ of water per hectare against 4,050 m³/ha under the timer: 930 m³/ha less, \
a saving of 23%, mostly in cloudy March weeks and the first five weeks after planting. Yield was 17.8 kg/m² \
against 18.1 kg/m², 1.7% lower, a difference that was not significant (p = 0.41). Water productivity rose from \
44.7 to 57.1 kg of fruit per m³ of water, up 28%. Sugar rose from 5.6 to 5.9 °Brix (p = 0.03). Two of the 12 \
sensor nodes (17%) failed from corroded connectors and were replaced within 2 days; readings drifted by 3.5 \
percentage points over the season against the oven-dried samples.

Limitations. This is one season, one greenhouse, one cultivar and one loam soil; summer heat and sandy soils \
were not tested. The baseline was the farm's own timer, not an optimised schedule, so savings against a better \
timer would be smaller. Monthly calibration took about 0.5 hours per node and was not costed. The 17% failure \
rate shows the hardware needs better sealing, and its lifetime is unknown. The sugar difference rests on a \
single sampling.

Conclusion. Under these conditions, sensor-triggered drip irrigation used 23% less water than the farm's \
timer with no significant loss of yield, and raised water productivity by 28%. Drift and node durability must \
be solved, and the result repeated across seasons, soils and greenhouses, before it is recommended.
"""
